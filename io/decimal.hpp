#pragma once
// Exact fast paths for the plain decimals text formats are full of ("-12.345678"): reading them
// and printing them with a fixed number of decimals. Both give bit-for-bit the same result as
// std::from_chars / std::to_chars (correct rounding); anything outside the fast path (exponents,
// more than 19 digits, too many decimals, huge values, a rounding tie) is handed to the standard
// functions, so callers never see a difference except speed (BVH: 2-3x faster frame lines).
#include <bit>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace ikfix::io {

namespace decimal_detail {
// 10^k for k in [0, 22]: every one is exactly a double (10^22 < 2^53 * 2^22, 5^22 < 2^53).
inline constexpr double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
// 10^k for k in [0, 8].
inline constexpr std::uint64_t kPow10Int[9] = {1,      10,      100,      1000,     10000,
                                               100000, 1000000, 10000000, 100000000};
}  // namespace decimal_detail

// Decimals a number's text shows: digits after '.', minus the exponent if any ("1.5e-05" -> 6),
// clamped to [0, kMaxShownDecimals]. 0 for integers.
inline constexpr int kMaxShownDecimals = 17;
inline int decimals_shown(std::string_view s) {
  int decimals = 0;
  std::size_t n = 0;
  while (n < s.size() && s[n] != '.' && s[n] != 'e' && s[n] != 'E') ++n;
  if (n < s.size() && s[n] == '.') {
    for (++n; n < s.size() && s[n] >= '0' && s[n] <= '9'; ++n) ++decimals;
  }
  if (n < s.size() && (s[n] == 'e' || s[n] == 'E')) {
    std::size_t start = n + 1;
    if (start < s.size() && s[start] == '+') ++start;
    int exponent = 0;
    std::from_chars(s.data() + start, s.data() + s.size(), exponent);
    decimals -= exponent;
  }
  return decimals < 0 ? 0 : decimals > kMaxShownDecimals ? kMaxShownDecimals : decimals;
}

namespace decimal_detail {
static_assert(std::endian::native == std::endian::little, "the eight-byte reads assume it");

// Digits at the start of the 8 bytes `chunk` (little-endian: the first character in the low
// byte): 0-8. A byte is a digit when it XOR '0' is below 10; adding 0x76 sets bit 7 of every
// byte at 10 or more (a carry out of a byte only reaches later bytes, past the first non-digit).
inline int leading_digits(std::uint64_t chunk) {
  const std::uint64_t x = chunk ^ 0x3030303030303030ull;
  const std::uint64_t non_digit = ((x + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
  return non_digit == 0 ? 8 : __builtin_ctzll(non_digit) >> 3;
}

// The value of the first `n` (1-8) characters of `chunk`, all digits.
inline std::uint64_t digits_value(std::uint64_t chunk, int n) {
  // Each byte less '0', then the n digits moved to the top bytes with zeros shifted in below:
  // the same 8-digit number. A byte past the digits may borrow from the bytes above it, which
  // the shift drops; the digits themselves (at least '0') borrow nothing.
  std::uint64_t v = (chunk - 0x3030303030303030ull) << (8 * (8 - n));
  v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ffull;         // pairs
  v = (v * 100 + (v >> 16)) & 0x0000ffff0000ffffull;       // groups of four
  return (v * 10000 + (v >> 32)) & 0x00000000ffffffffull;  // all eight
}

// digits_value of three chunks at once: out[k] = digits_value(chunk[k], n[k]). On x86-64 the
// digits, aligned as digits_value aligns them, are combined by SSE2's multiply-adds (pairs,
// then fours, then eights) for all three together.
inline void three_digits_values(const std::uint64_t chunk[3], const int n[3],
                                std::uint64_t out[3]) {
#if defined(__SSE2__) && defined(__x86_64__)
  std::uint64_t d[3];
  for (int k = 0; k < 3; ++k) d[k] = (chunk[k] - 0x3030303030303030ull) << (8 * (8 - n[k]));
  const __m128i zero = _mm_setzero_si128();
  const __m128i ab = _mm_set_epi64x(static_cast<long long>(d[1]), static_cast<long long>(d[0]));
  const __m128i c = _mm_cvtsi64_si128(static_cast<long long>(d[2]));
  // Per 32-bit lane, the 16-bit factors {10, 1}: a digit pair, the earlier digit first.
  const __m128i tens = _mm_set1_epi32(0x0001000a);
  const __m128i a_pairs = _mm_madd_epi16(_mm_unpacklo_epi8(ab, zero), tens);
  const __m128i b_pairs = _mm_madd_epi16(_mm_unpackhi_epi8(ab, zero), tens);
  const __m128i c_pairs = _mm_madd_epi16(_mm_unpacklo_epi8(c, zero), tens);
  // {100, 1}: two pairs (each at most 99) into four digits.
  const __m128i hundreds = _mm_set1_epi32(0x00010064);
  const __m128i ab_fours = _mm_madd_epi16(_mm_packs_epi32(a_pairs, b_pairs), hundreds);
  const __m128i c_fours = _mm_madd_epi16(_mm_packs_epi32(c_pairs, c_pairs), hundreds);
  // Per 64-bit lane: the first four digits times 10^4 plus the last four.
  const __m128i ten_thousand = _mm_set1_epi32(10000);
  const __m128i ab_eights =
      _mm_add_epi64(_mm_mul_epu32(ab_fours, ten_thousand), _mm_srli_epi64(ab_fours, 32));
  const __m128i c_eights =
      _mm_add_epi64(_mm_mul_epu32(c_fours, ten_thousand), _mm_srli_epi64(c_fours, 32));
  out[0] = static_cast<std::uint64_t>(_mm_cvtsi128_si64(ab_eights));
  out[1] = static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(ab_eights, ab_eights)));
  out[2] = static_cast<std::uint64_t>(_mm_cvtsi128_si64(c_eights));
#else
  for (int k = 0; k < 3; ++k) out[k] = digits_value(chunk[k], n[k]);
#endif
}

inline std::uint64_t load8(const char* p) {
  std::uint64_t chunk;
  std::memcpy(&chunk, p, sizeof chunk);
  return chunk;
}

// After the sign, the common "d{0,7}[.d{0,15}]" (at most 19 digits) read eight bytes at a time:
// true with the mantissa, its digits and decimals and the end (what the loop in read_double
// gives); false for longer runs of digits (that loop then reads them one at a time). Needs 32
// readable bytes from `first`.
inline bool plain_decimal(const char* first, std::uint64_t& mantissa, int& digits, int& decimals,
                          const char*& end) {
  const char* p = first;
  const int whole = leading_digits(load8(p));
  if (whole == 8) return false;
  mantissa = whole == 0 ? 0 : digits_value(load8(p), whole);
  p += whole;
  decimals = 0;
  if (*p == '.') {
    ++p;
    const std::uint64_t a = load8(p);
    const int first_eight = leading_digits(a);
    if (first_eight > 0)
      mantissa = mantissa * kPow10Int[first_eight] + digits_value(a, first_eight);
    p += first_eight;
    decimals = first_eight;
    if (first_eight == 8) {
      const std::uint64_t b = load8(p);
      const int next = leading_digits(b);
      if (next == 8) return false;
      if (next > 0) mantissa = mantissa * kPow10Int[next] + digits_value(b, next);
      p += next;
      decimals += next;
    }
  }
  digits = whole + decimals;
  end = p;
  return digits <= 19;
}
}  // namespace decimal_detail

// The common "[-]d{0,7}[.d{0,15}]" with 1-19 digits and a mantissa of at most 2^53, read eight
// bytes at a time: its end, with its value and the decimals it shows (0-15), bit for bit what
// read_double gives when the number is not followed by an exponent ('e', 'E'), which the caller
// checks: the character at the end is not looked at. Null for any other text (a '+' sign,
// longer runs of digits, no digit at all), which read_double then decides. Needs 33 readable
// bytes from `first`.
inline const char* read_plain_decimal(const char* first, double& value, int& decimals) {
  using decimal_detail::digits_value;
  using decimal_detail::load8;
  const bool negative = *first == '-';
  const char* p = first + negative;
  // Seven characters or fewer after the sign (text files' usual "-12.3456"), all in one
  // eight-byte chunk: the non-digit bytes' flags give the point and the end at once (ASCII bytes
  // never carry into the next byte's flag, so the flag after a '.' is exact too), and the two
  // parts' digits, the point taken out, are converted together.
  const std::uint64_t a = load8(p);
  const std::uint64_t x = a ^ 0x3030303030303030ull;
  const std::uint64_t non_digit = ((x + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
  std::uint64_t mantissa = 0;
  const char* end = nullptr;
  const int point = non_digit == 0 ? 8 : __builtin_ctzll(non_digit) >> 3;
  const std::uint64_t after_first = non_digit & (non_digit - 1);
  if (point < 8 && p[point] != '.') {
    if (point == 0) return nullptr;
    mantissa = digits_value(a, point);
    decimals = 0;
    end = p + point;
  } else if (point < 8 && after_first != 0) {
    const int stop = __builtin_ctzll(after_first) >> 3;  // after the fraction
    if (stop == 1) return nullptr;                       // "." alone
    const std::uint64_t below_point = (std::uint64_t{1} << (8 * point)) - 1;
    mantissa = digits_value((a & below_point) | ((a >> 8) & ~below_point), stop - 1);
    decimals = stop - 1 - point;
    end = p + stop;
  } else {
    int digits = 0;  // longer: the general eight-byte reading
    if (!decimal_detail::plain_decimal(p, mantissa, digits, decimals, end) || digits == 0 ||
        mantissa > (std::uint64_t{1} << 53))
      return nullptr;
  }
  // Clinger's fast path, as in read_double.
  const double magnitude = static_cast<double>(mantissa) / decimal_detail::kPow10[decimals];
  value = negative ? -magnitude : magnitude;
  return end;
}

// What read_plain_decimal accepts, without making its value: null exactly where it returns
// null, else the same end and decimals. For text that is checked and kept but not used as a
// number (a BVH channel nobody reads). Needs 33 readable bytes from `first`.
inline const char* scan_plain_decimal(const char* first, int& decimals) {
  const char* p = first + (*first == '-');
  const std::uint64_t a = decimal_detail::load8(p);
  const std::uint64_t x = a ^ 0x3030303030303030ull;
  const std::uint64_t non_digit = ((x + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
  const int point = non_digit == 0 ? 8 : __builtin_ctzll(non_digit) >> 3;
  const std::uint64_t after_first = non_digit & (non_digit - 1);
  if (point < 8 && p[point] != '.') {
    if (point == 0) return nullptr;
    decimals = 0;
    return p + point;
  }
  if (point < 8 && after_first != 0) {
    const int stop = __builtin_ctzll(after_first) >> 3;
    if (stop == 1) return nullptr;
    decimals = stop - 1 - point;
    return p + stop;
  }
  double unused;  // longer: read_plain_decimal's own checks decide (digits, the 2^53 bound)
  return read_plain_decimal(first, unused, decimals);
}

// Same contract as std::from_chars(first, last, value) for chars_format::general. When
// `decimals` is not null it receives decimals_shown() of the text read.
inline std::from_chars_result read_double(const char* first, const char* last, double& value,
                                          int* decimals_out = nullptr) {
  // Clinger's fast path: an integer mantissa m < 2^53 and 10^k exactly representable make
  // m / 10^k a single correctly rounded IEEE division, i.e. exactly what from_chars returns.
  const char* p = first;
  const bool negative = p < last && *p == '-';
  if (negative) ++p;
  std::uint64_t mantissa = 0;
  int digits = 0, decimals = 0;
  const char* plain_end = nullptr;
  if (last - p >= 32 && decimal_detail::plain_decimal(p, mantissa, digits, decimals, plain_end)) {
    p = plain_end;
  } else {
    mantissa = 0, digits = 0, decimals = 0;
    for (; p < last && static_cast<unsigned char>(*p - '0') < 10; ++p, ++digits)
      mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    if (p < last && *p == '.') {
      for (++p; p < last && static_cast<unsigned char>(*p - '0') < 10; ++p, ++digits, ++decimals)
        mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    }
  }
  const bool exponent_follows = p < last && (*p == 'e' || *p == 'E');
  if (digits == 0 || digits > 19 || exponent_follows || decimals > 22 ||
      mantissa > (std::uint64_t{1} << 53)) {
    const auto r = std::from_chars(first, last, value);
    if (decimals_out)
      *decimals_out =
          decimals_shown(std::string_view(first, static_cast<std::size_t>(r.ptr - first)));
    return r;
  }
  if (decimals_out) *decimals_out = decimals > kMaxShownDecimals ? kMaxShownDecimals : decimals;
  const double magnitude = static_cast<double>(mantissa) / decimal_detail::kPow10[decimals];
  value = negative ? -magnitude : magnitude;
  return {p, std::errc()};
}

// The fast path of write_fixed: |value| rounded to `decimals` decimals, as an integer count of
// 10^-decimals units (exact, < 2^52), when |value| * 10^decimals < 4e15, decimals <= 22 and the
// value is not within ~1e-9 units of a rounding tie. false: use std::to_chars instead.
inline bool fixed_units(double value, int decimals, std::uint64_t& units) {
  // The product is split exactly into hi + lo (fma), so the distance to the nearest integer is
  // known exactly unless it is a near-tie, which is left to to_chars (it settles ties on the
  // exact binary value).
  const double magnitude = value < 0 ? -value : value;
  if (decimals < 0 || decimals > 22 || !(magnitude < 4.0e15)) return false;
  const double scale = decimal_detail::kPow10[decimals];
  const double hi = magnitude * scale;
  if (!(hi < 4.0e15)) return false;
  const double lo = __builtin_fma(magnitude, scale, -hi);  // exact: magnitude*scale = hi + lo
  // Round to the nearest integer, ties to even (nearbyint in the default rounding mode, without
  // the libm call): for 0 <= hi < 2^52, hi + 2^52 lies in [2^52, 2^53) where doubles are the
  // integers, so the sum rounds hi to an integer and subtracting 2^52 again is exact.
  constexpr double kTwo52 = 4503599627370496.0;
  double n = (hi + kTwo52) - kTwo52;  // hi - n is exact (|hi| < 2^52); no -ffast-math here
  const double r = (hi - n) + lo;     // exact value minus n, to ~1 ulp
  constexpr double kTieBand = 1e-9;   // r is within ~1e-16 of the exact distance
  if (r >= 0.5 - kTieBand) {
    if (r <= 0.5 + kTieBand) return false;
    n += 1.0;
  } else if (r <= -0.5 + kTieBand) {
    if (r >= -0.5 - kTieBand) return false;
    n -= 1.0;
  }
  units = static_cast<std::uint64_t>(n);
  return true;
}

// Whether every value within `error` of a value has the same fixed_units as it (and fixed_units
// succeeds for each): not where a rounding tie, or fixed_units' own tie band or magnitude limit,
// lies within `error` (plus a margin) of it. For a value known only to within `error`: its
// printed text is then certain, and so is the sign where units > 0. The decimals' constants are
// made once, for a writer that tests many values against the same decimals.
class CertainRounding {
 public:
  CertainRounding() = default;
  CertainRounding(double error, int decimals)
      : usable_(decimals >= 0 && decimals <= 22),
        scale_(usable_ ? decimal_detail::kPow10[decimals] : 0.0),
        // The value's spread and fixed_units' tie band (1e-9), with room to spare.
        band_(error * scale_ * (1.0 + 1e-6) + 4e-9) {}

  bool certain(double value) const {
    const double hi = (value < 0 ? -value : value) * scale_;  // within hi * 2^-53 of the product
    if (!usable_ || !(hi < 3.9e15)) return false;
    constexpr double kTwo52 = 4503599627370496.0;
    const double n = (hi + kTwo52) - kTwo52;  // the nearest integer; hi - n is exact
    const double r = hi - n;
    const double band = band_ + hi * 2.4e-16;  // and hi's own rounding
    return r < 0.5 - band && r > -0.5 + band;
  }

 private:
  bool usable_ = false;
  double scale_ = 0.0;
  double band_ = 0.0;
};

inline bool fixed_units_certain(double value, double error, int decimals) {
  return CertainRounding(error, decimals).certain(value);
}

// What read_double gives for the text write_fixed prints from fixed_units' `units` (the sign
// taken from `value`): units / 10^decimals, negated for a negative value, without the text.
inline double fixed_units_value(double value, int decimals, std::uint64_t units) {
  const double magnitude = static_cast<double>(units) / decimal_detail::kPow10[decimals];
  return (value < 0 || (value == 0 && __builtin_signbit(value))) ? -magnitude : magnitude;
}

// Room write_fixed_units needs after `first` (it writes past the text it returns: see there).
inline constexpr std::size_t kFixedUnitsRoom = 48;

// The text of `units` (from fixed_units) with `decimals` decimals and the sign of `value`;
// `first` must have room for kFixedUnitsRoom characters. Returns the end.
inline char* write_fixed_units(char* first, double value, int decimals, std::uint64_t units) {
  // Digits of `units`, at least decimals + 1 of them, right to left, two per division (the
  // divisions form one dependent chain: half as long), ending at digits + kDigitsEnd.
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445"
      "46474849"
      "50515253545556575859606162636465666768697071727374757677787980818283848586878889909192939495"
      "96979899";
  // Both parts are copied kCopy bytes at a time (a few moves instead of a memcpy call each): at
  // most 16 digits before the point (units < 4e15) and 23 in all, so each copy stays inside
  // `digits` and inside the room after `first` (1 + 16 + 1 + 24 <= kFixedUnitsRoom).
  constexpr int kDigitsEnd = 40, kCopy = 24;
  char digits[kDigitsEnd + kCopy];
  std::memset(digits + kDigitsEnd, '0', kCopy);  // what the copies read past the digits
  char* p = digits + kDigitsEnd;
  while (units >= 100) {
    const std::size_t pair = static_cast<std::size_t>(units % 100);
    units /= 100;
    p -= 2;
    p[0] = kPairs[2 * pair];
    p[1] = kPairs[2 * pair + 1];
  }
  if (units >= 10) {
    p -= 2;
    p[0] = kPairs[2 * units];
    p[1] = kPairs[2 * units + 1];
  } else {
    *--p = static_cast<char>('0' + units);
  }
  while (digits + kDigitsEnd - p < decimals + 1) *--p = '0';
  const int count = static_cast<int>(digits + kDigitsEnd - p);
  char* out = first;
  if (value < 0 || (value == 0 && __builtin_signbit(value))) *out++ = '-';
  const int integer_digits = count - decimals;
  std::memcpy(out, p, kCopy);
  out += integer_digits;
  if (decimals > 0) {
    *out++ = '.';
    std::memcpy(out, p + integer_digits, kCopy);
    out += decimals;
  }
  return out;
}

// Same output as std::to_chars(first, last, value, chars_format::fixed, decimals).
inline std::to_chars_result write_fixed(char* first, char* last, double value, int decimals) {
  std::uint64_t units = 0;
  if (last - first < static_cast<std::ptrdiff_t>(kFixedUnitsRoom) ||
      !fixed_units(value, decimals, units))
    return std::to_chars(first, last, value, std::chars_format::fixed, decimals);
  return {write_fixed_units(first, value, decimals, units), std::errc()};
}

}  // namespace ikfix::io
