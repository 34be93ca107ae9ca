// io/decimal.hpp's fast paths must agree bit for bit with std::from_chars / std::to_chars:
// millions of random values across magnitudes and decimal counts, ties, signs and the inputs
// that have to fall back (exponents, long mantissas, inf/nan, lone signs).
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "io/decimal.hpp"

namespace {

using ikfix::io::decimals_shown;
using ikfix::io::read_double;
using ikfix::io::write_fixed;

void expect_same_read(const std::string& text) {
  double fast = 12345.0, standard = 12345.0;
  int shown = -1;
  const auto a = read_double(text.data(), text.data() + text.size(), fast, &shown);
  const auto b = std::from_chars(text.data(), text.data() + text.size(), standard);
  ASSERT_EQ(a.ec, b.ec) << text;
  ASSERT_EQ(a.ptr - text.data(), b.ptr - text.data()) << text;
  if (b.ec == std::errc()) {
    ASSERT_EQ(shown, ikfix::io::decimals_shown(std::string_view(
                         text.data(), static_cast<std::size_t>(b.ptr - text.data()))))
        << text;
    if (std::isnan(standard)) {
      ASSERT_TRUE(std::isnan(fast)) << text;
    } else {
      ASSERT_EQ(std::memcmp(&fast, &standard, sizeof fast), 0)
          << text << ": " << fast << " vs " << standard;
    }
  }
}

std::string standard_fixed(double v, int decimals) {
  char buffer[400];
  const auto r =
      std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::fixed, decimals);
  return std::string(buffer, r.ptr);
}

void expect_same_write(double v, int decimals) {
  char buffer[400];
  const auto r = write_fixed(buffer, buffer + sizeof buffer, v, decimals);
  ASSERT_EQ(r.ec, std::errc());
  ASSERT_EQ(std::string(buffer, r.ptr), standard_fixed(v, decimals)) << v << " with " << decimals;
}

// The writer's compare-before-print path: when fixed_units takes a value, write_fixed_units
// prints what to_chars prints, and fixed_units_value is what read_double reads back from it.
void expect_units_agree(double v, int decimals) {
  std::uint64_t units = 0;
  if (!ikfix::io::fixed_units(v, decimals, units)) return;  // to_chars' business
  char buffer[64];
  const char* end = ikfix::io::write_fixed_units(buffer, v, decimals, units);
  const std::string text(static_cast<const char*>(buffer), end);
  ASSERT_EQ(text, standard_fixed(v, decimals)) << v << " with " << decimals;
  double reread = 0.0;
  read_double(text.data(), text.data() + text.size(), reread);
  const double value = ikfix::io::fixed_units_value(v, decimals, units);
  ASSERT_EQ(std::memcmp(&value, &reread, sizeof value), 0) << text;
}

TEST(Decimal, UnitsPrintAndReadBackLikeTheText) {
  for (double v :
       {0.0, -0.0, 1e-9, -1e-9, 0.5, -0.5, 2.5, 0.125, -17.31985, 9.3722, 123456.789, 3.9e15})
    for (int decimals : {0, 1, 2, 4, 6, 17, 22}) expect_units_agree(v, decimals);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-10, 16), decimals(0, 22);
  for (int i = 0; i < 300000; ++i)
    expect_units_agree(unit(rng) * std::pow(10.0, exponent(rng)), decimals(rng));
}

TEST(Decimal, ReadsLikeFromCharsOnHandPickedInputs) {
  for (const char* s : {"0",
                        "-0",
                        "0.0",
                        "-0.000",
                        ".5",
                        "-.5",
                        "5.",
                        "-5.",
                        ".",
                        "-",
                        "-.",
                        "",
                        "+1",
                        "1e5",
                        "1.5E-3",
                        "1e",
                        "inf",
                        "-inf",
                        "nan",
                        "0x10",
                        "1.2.3",
                        "123abc",
                        "00000000000000000000001.5",
                        "9007199254740992",
                        "9007199254740993",
                        "99999999999999999999",
                        "0.1234567890123456789012",
                        "1.7976931348623157e308",
                        "0.00000000000000000000001",
                        "-12.345678",
                        ".0083333",
                        "1 2",
                        "7-"})
    expect_same_read(s);
}

TEST(Decimal, DecimalsShown) {
  EXPECT_EQ(decimals_shown("12"), 0);
  EXPECT_EQ(decimals_shown("-12.3400"), 4);
  EXPECT_EQ(decimals_shown(".0083333"), 7);
  EXPECT_EQ(decimals_shown("5."), 0);
  EXPECT_EQ(decimals_shown("1.5e-05"), 6);
  EXPECT_EQ(decimals_shown("1.5E+02"), 0);
  EXPECT_EQ(decimals_shown("0.123456789012345678901"), 17);
}

TEST(Decimal, ReadsLikeFromCharsOnRandomDecimals) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-8, 12), decimals(0, 22);
  for (int i = 0; i < 300000; ++i) {
    const double v = unit(rng) * std::pow(10.0, exponent(rng));
    expect_same_read(standard_fixed(v, decimals(rng)));
  }
  // Random digit strings: any mantissa length, any decimal point position.
  std::uniform_int_distribution<int> length(1, 24), digit(0, 9);
  for (int i = 0; i < 300000; ++i) {
    std::string s = (rng() & 1) ? "-" : "";
    const int n = length(rng);
    const int point = static_cast<int>(rng() % static_cast<unsigned>(n + 1));
    for (int k = 0; k < n; ++k) {
      if (k == point) s += '.';
      s += static_cast<char>('0' + digit(rng));
    }
    expect_same_read(s);
  }
}

// read_plain_decimal at the start of `text` (33 readable bytes): when it takes the number, the
// same value (bit for bit), end and decimals as std::from_chars and decimals_shown, unless an
// exponent follows (the caller's check). scan_plain_decimal takes the same texts, with the same
// end and decimals.
void expect_plain_read_like_from_chars(const std::string& text, const std::string& shown) {
  ASSERT_GE(text.size(), 33u);
  double plain = 12345.0, standard = 12345.0;
  int decimals = -1;
  const char* end = ikfix::io::read_plain_decimal(text.data(), plain, decimals);
  int scanned = -1;
  ASSERT_EQ(ikfix::io::scan_plain_decimal(text.data(), scanned), end) << shown;
  if (end) {
    ASSERT_EQ(scanned, decimals) << shown;
  }
  if (!end || *end == 'e' || *end == 'E') return;
  const auto b = std::from_chars(text.data(), text.data() + text.size(), standard);
  ASSERT_EQ(b.ec, std::errc()) << shown;
  ASSERT_EQ(end - text.data(), b.ptr - text.data()) << shown;
  ASSERT_EQ(std::memcmp(&plain, &standard, sizeof plain), 0)
      << shown << ": " << plain << " vs " << standard;
  ASSERT_EQ(decimals, decimals_shown(std::string_view(text.data(),
                                                      static_cast<std::size_t>(end - text.data()))))
      << shown;
}

// read_double on `number` followed by `after` inside a buffer long enough for the eight-byte
// fast path (which reads past the number's end): same result and end as std::from_chars.
void expect_same_read_in_buffer(const std::string& number, const std::string& after) {
  const std::string text = number + after + std::string(40, ' ');
  double fast = 12345.0, standard = 12345.0;
  const char* last = text.data() + text.size();
  const auto a = read_double(text.data(), last, fast);
  const auto b = std::from_chars(text.data(), last, standard);
  ASSERT_EQ(a.ec, b.ec) << number << after;
  ASSERT_EQ(a.ptr - text.data(), b.ptr - text.data()) << number << after;
  if (b.ec == std::errc() && !std::isnan(standard)) {
    ASSERT_EQ(std::memcmp(&fast, &standard, sizeof fast), 0)
        << number << after << ": " << fast << " vs " << standard;
  }
  expect_plain_read_like_from_chars(text, number + after);
}

const std::vector<std::string> kAfterNumber = {
    "", " 1", "\n", "\r\n", "/", "e5", "E-3", "e", ".", "x", "#", std::string(1, '\0'), "-2", "+"};

TEST(Decimal, EightByteReadsLikeFromCharsOnEveryDigitCount) {
  // Every count of whole digits (0-12) and decimals (0-24) around the 8-byte steps and the
  // 19-digit limit, random digits (leading zeros included), with or without a sign or a point,
  // each followed by every kind of end.
  std::mt19937_64 rng(17);
  for (int whole = 0; whole <= 12; ++whole)
    for (int decimals = -1; decimals <= 24; ++decimals)  // -1: no decimal point
      for (int trial = 0; trial < 40; ++trial) {
        std::string s = trial % 3 == 0 ? "-" : "";
        for (int k = 0; k < whole; ++k) s += static_cast<char>('0' + rng() % 10);
        if (decimals >= 0) s += '.';
        for (int k = 0; k < decimals; ++k)
          s += static_cast<char>('0' + (trial % 5 == 0 ? 9 : rng() % 10));
        for (const std::string& after : kAfterNumber) expect_same_read_in_buffer(s, after);
      }
}

TEST(Decimal, EightByteReadsLikeFromCharsOnEveryShortText) {
  // Every text of up to 5 characters over digits, signs, points, exponents and separators.
  const std::string alphabet = "0159.-+eE x";
  std::string s;
  std::vector<std::size_t> at;
  for (std::size_t length = 1; length <= 5; ++length) {
    at.assign(length, 0);
    for (;;) {
      s.clear();
      for (const std::size_t k : at) s += alphabet[k];
      expect_same_read_in_buffer(s, "");
      expect_same_read_in_buffer(s, "0000000000000000000000");
      std::size_t k = 0;
      while (k < length && ++at[k] == alphabet.size()) at[k++] = 0;
      if (k == length) break;
    }
  }
}

TEST(Decimal, EightByteReadsLikeFromCharsOnEdgeCases) {
  for (const char* s : {"9007199254740992",
                        "9007199254740993",
                        "900719925474099.3",
                        "0.9007199254740993",
                        "9007199.254740993",
                        "1234567.123456789012345",
                        "0000000.000000000000000",
                        "1234567.1234567812345678",
                        "0.00000000000000000000001",
                        "12345678.5",
                        "1234567.5",
                        "99999999999999999999",
                        "9999999.999999999999",
                        "-0.0",
                        "-.5",
                        "5.",
                        "inf",
                        "nan",
                        "-infinity",
                        "1.7976931348623157e308",
                        "4.9e-324",
                        "0.1234567890123456789",
                        "-12.345678",
                        "-10.000000000",
                        "0.000049332",
                        "-0.0049315"})
    for (const std::string& after : kAfterNumber) expect_same_read_in_buffer(s, after);
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-12, 12), decimals(0, 20);
  for (int i = 0; i < 300000; ++i) {
    const double v = unit(rng) * std::pow(10.0, exponent(rng));
    expect_same_read_in_buffer(standard_fixed(v, decimals(rng)), kAfterNumber[i % 14]);
  }
}

// digits_value reads the first n bytes whatever follows them: bytes below '0' (a space, a
// point, a line break, a NUL) or above '9' after the digits change nothing.
TEST(Decimal, DigitsValueIgnoresTheBytesAfterTheDigits) {
  std::mt19937_64 random(18);
  for (int trial = 0; trial < 20000; ++trial) {
    const int n = 1 + trial % 8;
    char bytes[8];
    std::uint64_t expected = 0;
    for (int i = 0; i < 8; ++i) {
      const auto r = random();
      bytes[i] = i < n ? static_cast<char>('0' + r % 10) : static_cast<char>(r % 256);
      if (i < n) expected = expected * 10 + (r % 10);
    }
    std::uint64_t chunk;
    std::memcpy(&chunk, bytes, sizeof chunk);
    ASSERT_EQ(ikfix::io::decimal_detail::digits_value(chunk, n), expected) << n;
  }
  EXPECT_EQ(ikfix::io::decimal_detail::digits_value(0x0000000000003930ull, 2), 9u);  // "09", NULs
  EXPECT_EQ(ikfix::io::decimal_detail::digits_value(0x2020202020203030ull, 2), 0u);  // "00", spaces
}

// three_digits_values gives digits_value's three values, whatever the digit counts (1-8) and
// the bytes after the digits, all nines and all zeros included.
TEST(Decimal, ThreeDigitsValuesAreDigitsValues) {
  std::mt19937_64 random(3);
  for (int trial = 0; trial < 60000; ++trial) {
    std::uint64_t chunk[3], expected[3], out[3];
    int n[3];
    for (int k = 0; k < 3; ++k) {
      n[k] = 1 + static_cast<int>(random() % 8);
      const int kind = trial % 3;  // random digits, all nines, all zeros
      char bytes[8];
      for (int i = 0; i < 8; ++i) {
        const auto r = random();
        const char digit = kind == 1 ? '9' : kind == 2 ? '0' : static_cast<char>('0' + r % 10);
        bytes[i] = i < n[k] ? digit : static_cast<char>(r % 256);
      }
      std::memcpy(&chunk[k], bytes, sizeof chunk[k]);
      expected[k] = ikfix::io::decimal_detail::digits_value(chunk[k], n[k]);
    }
    ikfix::io::decimal_detail::three_digits_values(chunk, n, out);
    for (int k = 0; k < 3; ++k) ASSERT_EQ(out[k], expected[k]) << trial << " " << k << " " << n[k];
  }
}

TEST(Decimal, PlainReadTakesTheCommonFormsAndLeavesTheRest) {
  const std::string room(40, ' ');
  double v = 0.0;
  int decimals = -1;
  for (const char* s : {"0", "-17", "9.3722", "-17.3198", "-0.0000", ".0083333", "5.", "-.5",
                        "0.658012", "-103.167999", "1234.12345678901"}) {
    const std::string text = s + room;
    ASSERT_NE(ikfix::io::read_plain_decimal(text.data(), v, decimals), nullptr) << s;
    expect_plain_read_like_from_chars(text, s);
  }
  for (const char* s : {"", "-", ".", "-.", "+1", "--1", "x", "12345678", "1234567.1234567812345",
                        "9999999.999999999999", "00000000000000000001"}) {
    const std::string text = s + room;
    EXPECT_EQ(ikfix::io::read_plain_decimal(text.data(), v, decimals), nullptr) << s;
  }
}

TEST(Decimal, WritesLikeToCharsOnRandomValues) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-10, 16), decimals(0, 22);
  for (int i = 0; i < 500000; ++i)
    expect_same_write(unit(rng) * std::pow(10.0, exponent(rng)), decimals(rng));
}

TEST(Decimal, WritesTiesSignsAndEdgesLikeToChars) {
  for (int d = 0; d <= 22; ++d)
    for (double v : {0.0,
                     -0.0,
                     0.5,
                     -0.5,
                     1.5,
                     2.5,
                     -2.5,
                     0.125,
                     0.375,
                     -0.0625,
                     1e-300,
                     -1e-300,
                     0.05,
                     0.15,
                     0.25,
                     0.35,
                     2.675,
                     1.005,
                     123456.5,
                     4503599627370495.5,
                     4e15,
                     3.9999e15,
                     1e16,
                     1e300,
                     std::numeric_limits<double>::max(),
                     std::numeric_limits<double>::denorm_min(),
                     std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()})
      expect_same_write(v, d);
  // Every multiple of 1/1024 is exact in binary, so many of these are exact decimal ties.
  for (int k = -5000; k <= 5000; ++k)
    for (int d = 0; d <= 6; ++d) expect_same_write(k / 1024.0, d);
  // Values printed with d decimals and read back, nudged by an ulp: the near-tie neighbourhood.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(-400.0, 400.0);
  for (int i = 0; i < 200000; ++i) {
    const int d = static_cast<int>(rng() % 8);
    const double half = (std::round(unit(rng) * std::pow(10.0, d)) + 0.5) / std::pow(10.0, d);
    for (double v : {half, std::nextafter(half, 1e300), std::nextafter(half, -1e300)})
      expect_same_write(v, d);
  }
}

}  // namespace
