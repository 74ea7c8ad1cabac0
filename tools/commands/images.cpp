// --image arguments as crash images (images.h).
#include "tools/commands/images.h"

namespace sfu::tools::cli {

bool load_crash_images(const Command &self, const Options &o, bool lines, std::vector<crash::CrashImage> &out,
                       int &status) {
  const std::vector<std::string> args = o.all("--image");
  if (args.empty()) return (status = usage_error(self, "give the image of each module with --image"), false);
  out = std::vector<crash::CrashImage>(args.size());
  for (size_t i = 0; i < args.size(); i++) {
    ImageArgument a;
    std::string error;
    if (!parse_image_argument(args[i], a, error)) return (status = usage_error(self, error), false);
    if (!crash::load_crash_image(a.path, lines, out[i], error)) return (status = refused(self, a.path, error), false);
    out[i].placed = a.placed;
    out[i].placed_at = a.address;
  }
  return true;
}

}  // namespace sfu::tools::cli
