#include "core/retarget/joint_names.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <unordered_map>
#include <unordered_set>

namespace ikfix::core {
namespace {

using K = PartKind;

// U+00C0..U+00FF (UTF-8 C3 80..C3 BF) to their ASCII base letter, keeping case, so French,
// German and Spanish joint names tokenise like English ones. '\0' = no letter (x, /).
char fold_latin1(unsigned char second) {
  static const char kUpper[] =
      "AAAAAAACEEEEIIII"
      "DNOOOOO\0OUUUUYTs";
  static const char kLower[] =
      "aaaaaaaceeeeiiii"
      "dnooooo\0ouuuuyty";
  const int cp = 0xC0 + (second - 0x80);
  return cp < 0xE0 ? kUpper[cp - 0xC0] : kLower[cp - 0xE0];
}

// Name with accents folded; other non-ASCII bytes become separators.
std::string fold_to_ascii(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c == 0xC3 && i + 1 < name.size() &&
               (static_cast<unsigned char>(name[i + 1]) & 0xC0) == 0x80) {
      const char f = fold_latin1(static_cast<unsigned char>(name[++i]));
      out.push_back(f ? f : ' ');
    } else {
      out.push_back(' ');
    }
  }
  return out;
}

// Splits on non-alphanumerics, lower->Upper ("LeftUpLeg"), Upper->Upper+lower ("LHip" -> L, Hip)
// and letter<->digit boundaries; lower-cases the words.
std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) words.push_back(cur);
    cur.clear();
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!std::isalnum(c)) {
      flush();
      continue;
    }
    if (!cur.empty()) {
      const auto p = static_cast<unsigned char>(s[i - 1]);
      const bool next_lower =
          i + 1 < s.size() && std::islower(static_cast<unsigned char>(s[i + 1]));
      if ((std::islower(p) && std::isupper(c)) ||
          (std::isupper(p) && std::isupper(c) && next_lower) ||
          (std::isdigit(p) != 0) != (std::isdigit(c) != 0))
        flush();
    }
    cur.push_back(static_cast<char>(std::tolower(c)));
  }
  flush();
  return words;
}

bool is_number(const std::string& w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

int side_of_word(const std::string& w) {
  static const std::unordered_set<std::string> kLeft = {
      "left", "l", "lft", "lt", "gauche", "links", "izquierda", "izq", "sinistra", "sx"};
  static const std::unordered_set<std::string> kRight = {
      "right", "r", "rgt", "rt", "droite", "droit", "rechts", "derecha", "der", "destra", "dx"};
  if (kLeft.count(w)) return 0;
  if (kRight.count(w)) return 1;
  return -1;
}

const std::unordered_map<std::string, std::vector<K>>& part_words() {
  static const std::unordered_map<std::string, std::vector<K>> kWords = {
      {"hips", {K::Hips}},
      {"pelvis", {K::Hips}},
      {"bassin", {K::Hips}},
      {"becken", {K::Hips}},
      {"hip", {K::Hips, K::HipSocket, K::Thigh}},
      {"root", {K::Hips}},
      {"spine", {K::Spine}},
      {"lowerback", {K::Spine}},
      {"back", {K::Spine}},
      {"abdomen", {K::Spine}},
      {"ab", {K::Spine}},
      {"abs", {K::Spine}},
      {"chest", {K::Spine}},
      {"upperchest", {K::Spine}},
      {"torso", {K::Spine, K::Hips}},
      {"torse", {K::Spine}},
      {"waist", {K::Spine}},
      {"lumbar", {K::Spine}},
      {"thorax", {K::Spine}},
      {"belly", {K::Spine}},
      {"ribcage", {K::Spine}},
      {"dos", {K::Spine}},
      {"neck", {K::Neck}},
      {"lowerneck", {K::Neck}},
      {"upperneck", {K::Neck}},
      {"cou", {K::Neck}},
      {"hals", {K::Neck}},
      {"head", {K::Head}},
      {"tete", {K::Head}},
      {"kopf", {K::Head}},
      {"cabeza", {K::Head}},
      {"skull", {K::Head}},
      {"clavicle", {K::Clavicle}},
      {"collar", {K::Clavicle}},
      {"clav", {K::Clavicle}},
      {"scapula", {K::Clavicle}},
      {"shoulder", {K::Clavicle, K::UpperArm}},
      {"epaule", {K::Clavicle, K::UpperArm}},
      {"arm", {K::UpperArm}},
      {"upperarm", {K::UpperArm}},
      {"uparm", {K::UpperArm}},
      {"shldr", {K::UpperArm}},
      {"bras", {K::UpperArm}},
      {"humerus", {K::UpperArm}},
      {"armupper", {K::UpperArm}},
      {"forearm", {K::LowerArm}},
      {"elbow", {K::LowerArm}},
      {"lowerarm", {K::LowerArm}},
      {"loarm", {K::LowerArm}},
      {"avantbras", {K::LowerArm}},
      {"ulna", {K::LowerArm}},
      {"radius", {K::LowerArm}},
      {"armlower", {K::LowerArm}},
      {"hand", {K::Hand}},
      {"wrist", {K::Hand}},
      {"main", {K::Hand}},
      {"palm", {K::Hand}},
      {"hnd", {K::Hand}},
      {"hipjoint", {K::HipSocket}},
      {"buttock", {K::HipSocket}},
      {"upleg", {K::Thigh}},
      {"upperleg", {K::Thigh}},
      {"thigh", {K::Thigh}},
      {"femur", {K::Thigh}},
      {"cuisse", {K::Thigh}},
      {"legupper", {K::Thigh}},
      {"jambe", {K::Thigh, K::Shin}},
      {"leg", {K::Shin, K::Thigh}},
      {"knee", {K::Shin}},
      {"shin", {K::Shin}},
      {"calf", {K::Shin}},
      {"lowerleg", {K::Shin}},
      {"crus", {K::Shin}},
      {"tibia", {K::Shin}},
      {"leglower", {K::Shin}},
      {"mollet", {K::Shin}},
      {"foot", {K::Foot}},
      {"ankle", {K::Foot}},
      {"pied", {K::Foot}},
      {"fuss", {K::Foot}},
      {"toe", {K::Toe}},
      {"toes", {K::Toe}},
      {"toebase", {K::Toe}},
      {"ball", {K::Toe}},
      {"orteil", {K::Toe}},
      {"thumb", {K::Thumb}},
      {"pollex", {K::Thumb}},
      {"pouce", {K::Thumb}},
      {"index", {K::Index}},
      {"pointer", {K::Index}},
      {"indicator", {K::Index}},
      {"middle", {K::Middle}},
      {"mid", {K::Middle}},
      {"ring", {K::Ring}},
      {"pinky", {K::Pinky}},
      {"little", {K::Pinky}},
      {"small", {K::Pinky}},
      {"finger", {K::Finger}},
      {"fingers", {K::Finger}},
      {"fingerbase", {K::Finger}},
      {"doigt", {K::Finger}},
  };
  return kWords;
}

const std::vector<K>* kinds_of(const std::string& word) {
  const auto& words = part_words();
  const auto it = words.find(word);
  return it == words.end() ? nullptr : &it->second;
}

// Words of rig conventions, not anatomy: dropped before the name is read.
bool is_noise(const std::string& w) {
  static const std::unordered_set<std::string> kNoise = {
      "mixamorig", "bip",  "bip01",      "bip001",   "def",      "org",   "character",
      "cc",        "base", "valvebiped", "armature", "skeleton", "joint", "jnt",
      "jt",        "bone", "bn",         "b",        "j",        "deform"};
  return kNoise.count(w) > 0;
}

bool is_helper_word(const std::string& w) {
  static const std::unordered_set<std::string> kHelper = {
      "ctrl", "ctl", "control", "controller", "ik", "roll", "pole", "target", "tgt", "helper",
      "mch", "aux", "twist", "weapon", "arme", "sword", "gun", "shield", "prop", "pagne",
      "loincloth", "cape", "locator", "null", "driver", "offset", "socket", "attach", "attachment",
      "effector",
      // Secondary (cloth, hair, jiggle) bones: deform, but no humanoid role, and a skirt reaching
      // below the knees must not look like a third leg.
      "skirt", "dress", "coat", "cloth", "hair", "ponytail", "braid", "jiggle", "physics", "dyn"};
  return kHelper.count(w) > 0;
}

}  // namespace

bool JointName::can_mean(PartKind k) const {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

JointName parse_joint_name(std::string_view raw) {
  JointName out;
  std::string name = fold_to_ascii(raw);
  // Namespaces ("mixamorig:", "Armature|") end at the last separator.
  if (const auto cut = name.find_last_of(":|"); cut != std::string::npos)
    name = name.substr(cut + 1);
  // Blender's numbered suffix ("pied gauche.001", rigify "spine.003") is no anatomy word, but
  // it keeps names apart.
  std::string suffix;
  if (name.size() > 4 && name[name.size() - 4] == '.' &&
      std::all_of(name.end() - 3, name.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    suffix = name.substr(name.size() - 4);
    name.resize(name.size() - 4);
  }
  std::vector<std::string> words = split_words(name);
  // Rig prefixes ("Bip01 ", "Character1_", "DEF-", "CC_Base_") are leading noise words and numbers.
  std::size_t first = 0;
  while (first + 1 < words.size() && (is_noise(words[first]) || is_number(words[first]))) ++first;
  words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(first));
  // A side letter glued to an anatomy word ("lhand", "rshldr").
  std::vector<std::string> tokens;
  for (const auto& w : words) {
    if (w.size() > 2 && (w[0] == 'l' || w[0] == 'r') && kinds_of(w.substr(1)) && !kinds_of(w)) {
      tokens.push_back(w.substr(0, 1));
      tokens.push_back(w.substr(1));
    } else {
      tokens.push_back(w);
    }
  }
  out.tokens = tokens;
  for (const auto& t : tokens) out.key += t;
  out.key += suffix;

  std::vector<std::string> anatomy;  // words that may name a body part
  for (const auto& t : tokens) {
    if (out.side < 0) out.side = side_of_word(t);
    if (is_helper_word(t)) out.helper = true;
    if (side_of_word(t) < 0 && !is_number(t) && !is_noise(t)) anatomy.push_back(t);
  }
  if (!tokens.empty()) {
    const std::string& last = tokens.back();
    out.end_marker =
        last == "end" || last == "nub" || last == "tip" || last == "top" || last == "leaf";
  }
  std::string joined;
  for (const auto& a : anatomy) joined += a;
  if (const auto* k = kinds_of(joined)) {
    out.kinds = *k;
  } else {
    for (std::size_t i = 0; i < anatomy.size(); ++i) {
      const auto* single = kinds_of(anatomy[i]);
      const auto* pair = i + 1 < anatomy.size() ? kinds_of(anatomy[i] + anatomy[i + 1]) : nullptr;
      for (const auto* k : {single, pair})
        if (k)
          for (K kind : *k)
            if (!out.can_mean(kind)) out.kinds.push_back(kind);
    }
  }
  return out;
}

}  // namespace ikfix::core
