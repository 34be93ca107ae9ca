#include "io/web_assets.hpp"

#include <stdexcept>
#include <string>

namespace ikfix::io {

std::string_view web_asset(std::string_view name) {
  for (const WebAsset& asset : web_assets())
    if (asset.name == name) return asset.bytes;
  throw std::logic_error("no embedded web asset called " + std::string(name));
}

}  // namespace ikfix::io
