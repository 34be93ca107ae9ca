#include "core/fix/plant_placement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

#include "core/fix/contacts.hpp"
#include "core/fix/fix_math.hpp"

namespace ikfix::core {
namespace {

// Search step along the foot's direction, metres; the first fitting step is refined by
// bisection to kFitPrecision.
constexpr double kSearchStep = 0.01;
constexpr double kFitPrecision = 0.0005;
// Planted frames a move is searched on (spread over the plant); a move found is then checked on
// every frame of the plant.
constexpr int kSearchFrames = 48;
// Directions searched, evenly around, for a foot with no ball (place_any_direction).
constexpr int kFreeDirections = 16;

// One plant's foot points and the vertical queries that tell how deep they would sink.
class PlantFit {
 public:
  PlantFit(const PlantPlacementJob& job, int first, int last);
  const std::vector<int>& search_frames() const { return search_frames_; }
  const std::vector<int>& all_frames() const { return all_frames_; }
  // The deepest excess (metres) over `frames` of the foot moved by `move_ws`; `per_frame`, when
  // not null, receives each frame's deepest.
  double excess(const Vec3& move_ws, const std::vector<int>& frames,
                std::vector<double>* per_frame = nullptr) const;
  // Whether the foot moved by `move_ws` fits on `frames`: no point sinks more than fit_m, and
  // its heel stands on the ground on some frame (not more than tolerance_m above it, beyond its
  // own height in the input and the plant's rise on the clip floor, where the plan sets a plant
  // on its leg's planted level whatever the terrain): a foot only its toes hold on a step edge
  // does not fit. The frame
  // that sank deepest in the last excess() or fits() is tried first: where it sinks more than
  // fit_m, the others' points are not queried.
  bool fits(const Vec3& move_ws, const std::vector<int>& frames) const;
  // True when the terrain's bounds prove that excess() at no move is at most tolerance_m on
  // every frame, without a query; false says nothing.
  bool surely_level() const;

 private:
  // The ground under the moved ankle and ball of every frame of `frames` into queried_ (slots
  // 0 and 1 of each frame in query_of_), and the plant's rise (need()'s most).
  double query_ankle_and_ball(const Vec3& move_ws, const std::vector<int>& frames) const;
  // The ground under the moved foot points of frames[i] for each i in [begin, end) into
  // queried_ (slots 2.. of each frame in query_of_); a point at its frame's ankle or ball, bit
  // for bit, takes their answer.
  void query_foot_points(const Vec3& move_ws, const std::vector<int>& frames, std::size_t begin,
                         std::size_t end) const;
  const GroundHit& hit(std::size_t i, int slot) const {
    return queried_[query_of_[i * per_frame_ + static_cast<std::size_t>(slot)]];
  }
  double need(std::size_t i, int f) const;
  double ankle_ground(std::size_t i, int f) const;
  double flat_need(int f) const;
  double frame_excess(std::size_t i, int f, double rise) const;
  // The plan's turn of a planted foot to ground of normal `n` (the ground under its ankle).
  const Quat& turn_to(const GroundHit& ankle_ground) const;

  const PlantPlacementJob& job_;
  int first_;
  int count_;                       // foot points per frame: the rigid ones, then the sole's
  std::size_t per_frame_;           // queries per frame in query_of_: ankle, ball, each foot point
  std::vector<Vec3> ankle_, ball_;  // [frame - first], locked, world metres
  // [frame - first]: the most the ground under the ankle may stand over the ball's for the foot
  // to stand on it (ankle_ground), metres: the moves only shift the foot, so once per frame.
  std::vector<double> steepest_;
  std::vector<Vec3> points_;  // [frame - first][foot point], locked, world metres
  std::vector<int> search_frames_, all_frames_;
  mutable std::vector<std::array<double, 2>> xz_;
  mutable std::vector<std::size_t> query_of_;  // per frame and slot: its answer in queried_
  mutable std::vector<GroundHit> queried_;
  mutable double heel_float_ = 0;   // the last excess(): the heel's least height over its ground
  mutable double flat_rise_ = 0;    // the last query: the plant's rise were all ground the floor
  mutable int deepest_frame_ = -1;  // the frame of the deepest excess last found
  // turn_to's last answer and the ground normal it was made for.
  mutable bool turn_known_ = false;
  mutable Vec3 turn_normal_{0.0};
  mutable Quat turn_{1, 0, 0, 0};
};

PlantFit::PlantFit(const PlantPlacementJob& job, int first, int last)
    : job_(job),
      first_(first),
      count_(job.sole_ws.empty() ? static_cast<int>(job.foot->points.size())
                                 : job.foot->point_count()),
      per_frame_(static_cast<std::size_t>(count_) + 2) {
  const int frames = last - first + 1;
  const int rigid = static_cast<int>(job.foot->points.size());
  const auto sole = static_cast<std::size_t>(count_ - rigid);
  points_.resize(static_cast<std::size_t>(frames) * static_cast<std::size_t>(count_));
  ankle_.resize(static_cast<std::size_t>(frames));
  ball_.resize(static_cast<std::size_t>(frames));
  steepest_.resize(static_cast<std::size_t>(frames));
  const double tan_tilt = std::tan(job.max_foot_tilt);
  for (int f = first; f <= last; ++f) {
    const Vec3 lock = job.lock_ws.empty() ? Vec3(0.0) : job.lock_ws[f];
    ankle_[f - first] = job.feet->ankle[f] + lock;
    ball_[f - first] = job.feet->toe[f] + lock;
    const Vec3 d = ball_[f - first] - ankle_[f - first];
    steepest_[f - first] = tan_tilt * std::hypot(d.x, d.z) + job.tolerance_m;
    Vec3* out = &points_[static_cast<std::size_t>((f - first) * count_)];
    for (int i = 0; i < rigid; ++i) {
      const RigidFootPoint& p = job.foot->points[i];
      out[i] = pose_rigid_point(p, job.samples->at(f, p.joint)) + lock;
    }
    for (std::size_t k = 0; k < sole; ++k)
      out[rigid + static_cast<int>(k)] = job.sole_ws[static_cast<std::size_t>(f) * sole + k] + lock;
  }
  const int stride = std::max(1, (frames + kSearchFrames - 1) / kSearchFrames);
  for (int f = first; f <= last; f += stride) search_frames_.push_back(f);
  if (search_frames_.back() != last) search_frames_.push_back(last);
  for (int f = first; f <= last; ++f) all_frames_.push_back(f);
}

// frames[i] = f. How far the plan raises a planted foot: its plant's highest need over the
// frames given (foot_offsets.hpp keeps a plant at one height, the most its ankle or ball needs to
// stand on its planted level over the ground).
double PlantFit::need(std::size_t i, int f) const {
  const double floor = job_.floor;
  auto height = [&](const GroundHit& h) { return h.hit ? h.height : floor; };
  return std::max(ankle_ground(i, f) + (job_.ankle_level - floor) - ankle_[f - first_].y,
                  height(hit(i, 1)) + (job_.toe_level - floor) - ball_[f - first_].y);
}

// need() were the ground the clip floor everywhere: the plan's raise of a plant that is not the
// terrain's doing (its levels are the leg's, over all its plants).
double PlantFit::flat_need(int f) const {
  return std::max(job_.ankle_level - ankle_[f - first_].y, job_.toe_level - ball_[f - first_].y);
}

// frames[i] = f. The ground the foot stands on under its ankle, world Y: the ground there, or the
// ball's where the ankle's is above it by more than the steepest ground the plan turns a foot
// to: the ankle is then over the step above the one the ball stands on (a foot pointing down the
// stairs, its heel against the riser behind) and which of the two the plan stands it on turns on
// where the lock holds it within a millimetre. Taking the lower keeps a heel inside that riser
// visible; a plant straddling the edge moves wholly onto one step.
double PlantFit::ankle_ground(std::size_t i, int f) const {
  const double floor = job_.floor;
  auto height = [&](const GroundHit& h) { return h.hit ? h.height : floor; };
  const double ankle = height(hit(i, 0)), ball = height(hit(i, 1));
  return ankle - ball > steepest_[f - first_] ? ball : ankle;
}

const Quat& PlantFit::turn_to(const GroundHit& ankle_ground) const {
  const Vec3 n = ankle_ground.hit ? ankle_ground.normal : kUp;
  // Made again only for another normal (bit for bit): planted feet mostly stand on one face.
  if (turn_known_ && std::memcmp(&n, &turn_normal_, sizeof n) == 0) return turn_;
  turn_ = axis_angle(safe_normalize(glm::cross(kUp, n), Vec3(1, 0, 0)),
                     std::min(angle_between(kUp, n), job_.max_foot_tilt));
  turn_normal_ = n;
  turn_known_ = true;
  return turn_;
}

// frames[i] = f. The foot is raised by `rise` and turned to the ground under the ankle as the
// plan aligns it; a point's excess is its depth under the ground at its (x, z) less its own depth
// under the floor in the input, at most the height of its ground over the ankle's.
double PlantFit::frame_excess(std::size_t i, int f, double rise) const {
  const double floor = job_.floor;
  auto height = [&](const GroundHit& h) { return h.hit ? h.height : floor; };
  const Vec3& ankle = ankle_[f - first_];
  const Quat& turn = turn_to(hit(i, 0));
  const double ankle_ground = this->ankle_ground(i, f);
  double worst = -std::numeric_limits<double>::infinity();
  for (int r = 0; r < count_; ++r) {
    const Vec3& p = points_[static_cast<std::size_t>((f - first_) * count_ + r)];
    const double y = ankle.y + rise + (turn * (p - ankle)).y;
    // Only what the terrain adds counts: a point sinks no deeper than its ground stands above
    // the ground under the ankle (on flat ground the plan's own lowering is no riser's doing).
    const double ground = height(hit(i, 2 + r));
    worst =
        std::max(worst, std::min(ground - y - std::max(0.0, floor - p.y), ground - ankle_ground));
    if (job_.foot->kind(r) == FootPointKind::Heel)
      heel_float_ = std::min(heel_float_, y - ground - (p.y - floor) - flat_rise_);
  }
  return worst;
}

// A point's excess is at most its ground less the ground under the ankle (frame_excess), which
// is the ankle's or the ball's; every answer at a point lies within the terrain's ground_floor
// and ground_ceiling there or is a miss, counted as the clip floor, and rounding is monotone. So
// a frame whose highest bound of a foot point less the lowest bound of its ankle and ball is at
// most tolerance_m has no excess above it (a NaN excess never raises excess()'s most).
bool PlantFit::surely_level() const {
  const double floor = job_.floor;
  if (!std::isfinite(floor)) return false;
  const Terrain& terrain = *job_.terrain;
  const auto n = static_cast<std::size_t>(count_);
  // Per slot (ankle, ball, then each foot point) the last point asked and its bound: a locked
  // point mostly stands still from frame to frame.
  std::vector<Vec3> asked(n + 2, Vec3(std::numeric_limits<double>::quiet_NaN()));
  std::vector<double> bound(n + 2);
  auto bound_at = [&](std::size_t slot, const Vec3& p, bool lower) {
    if (!(p.x == asked[slot].x && p.z == asked[slot].z)) {
      asked[slot] = p;
      bound[slot] = lower ? terrain.ground_floor(p.x, p.z) : terrain.ground_ceiling(p.x, p.z);
    }
    return bound[slot];
  };
  for (std::size_t k = 0; k < ankle_.size(); ++k) {
    const double lowest =
        std::min({floor, bound_at(0, ankle_[k], true), bound_at(1, ball_[k], true)});
    double highest = floor;
    for (std::size_t r = 0; r < n; ++r)
      highest = std::max(highest, bound_at(2 + r, points_[k * n + r], false));
    if (!(highest - lowest <= job_.tolerance_m)) return false;
  }
  return true;
}

double PlantFit::query_ankle_and_ball(const Vec3& move_ws, const std::vector<int>& frames) const {
  const std::size_t n = frames.size();
  // Queried point-major (every frame's ankle, then every frame's ball, then each foot point):
  // a locked point stands still from frame to frame, and Terrain::ground_at casts a run of
  // equal points once.
  xz_.clear();
  query_of_.resize(n * per_frame_);
  for (int slot = 0; slot < 2; ++slot)
    for (std::size_t i = 0; i < n; ++i) {
      const Vec3& p = (slot == 0 ? ankle_ : ball_)[frames[i] - first_];
      query_of_[i * per_frame_ + slot] = xz_.size();
      xz_.push_back({p.x + move_ws.x, p.z + move_ws.z});
    }
  queried_.resize(xz_.size());
  job_.terrain->ground_at(xz_, queried_);
  double rise = -std::numeric_limits<double>::infinity();
  flat_rise_ = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i) {
    rise = std::max(rise, need(i, frames[i]));
    flat_rise_ = std::max(flat_rise_, flat_need(frames[i]));
  }
  return rise;
}

void PlantFit::query_foot_points(const Vec3& move_ws, const std::vector<int>& frames,
                                 std::size_t begin, std::size_t end) const {
  // A point where the ankle or the ball is (the foot model's own ankle and ball, usually) takes
  // their answer: the same x, z bit for bit is the same query.
  const std::size_t first_new = xz_.size();
  for (int r = 0; r < count_; ++r)
    for (std::size_t i = begin; i < end; ++i) {
      const Vec3& p = points_[static_cast<std::size_t>((frames[i] - first_) * count_ + r)];
      const std::array<double, 2> xz{p.x + move_ws.x, p.z + move_ws.z};
      const std::size_t ankle_query = query_of_[i * per_frame_],
                        ball_query = query_of_[i * per_frame_ + 1];
      std::size_t& query = query_of_[i * per_frame_ + 2 + r];
      if (xz == xz_[ankle_query])
        query = ankle_query;
      else if (xz == xz_[ball_query])
        query = ball_query;
      else {
        query = xz_.size();
        xz_.push_back(xz);
      }
    }
  queried_.resize(xz_.size());
  job_.terrain->ground_at(std::span(xz_).subspan(first_new),
                          std::span(queried_).subspan(first_new));
}

double PlantFit::excess(const Vec3& move_ws, const std::vector<int>& frames,
                        std::vector<double>* per_frame) const {
  const double rise = query_ankle_and_ball(move_ws, frames);
  query_foot_points(move_ws, frames, 0, frames.size());
  double worst = -std::numeric_limits<double>::infinity();
  heel_float_ = std::numeric_limits<double>::infinity();
  if (per_frame) per_frame->resize(frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const double e = frame_excess(i, frames[i], rise);
    if (per_frame) (*per_frame)[i] = e;
    if (e > worst) deepest_frame_ = frames[i];
    worst = std::max(worst, e);
  }
  return worst;
}

bool PlantFit::fits(const Vec3& move_ws, const std::vector<int>& frames) const {
  const double rise = query_ankle_and_ball(move_ws, frames);
  // The deepest frame last time first: a move that does not fit mostly fails there too, and
  // one frame deeper than fit_m decides (the worst is at least as deep).
  const auto deepest = std::find(frames.begin(), frames.end(), deepest_frame_);
  if (deepest != frames.end()) {
    const auto i = static_cast<std::size_t>(deepest - frames.begin());
    query_foot_points(move_ws, frames, i, i + 1);
    if (frame_excess(i, frames[i], rise) > job_.fit_m) return false;
  }
  query_foot_points(move_ws, frames, 0, frames.size());
  double worst = -std::numeric_limits<double>::infinity();
  heel_float_ = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const double e = frame_excess(i, frames[i], rise);
    if (e > worst) deepest_frame_ = frames[i];
    worst = std::max(worst, e);
  }
  return worst <= job_.fit_m && !(heel_float_ > job_.tolerance_m);
}

// The least move (metres) along `dir_ws` (unit, horizontal), at most `max_move`, that fits on
// every frame of the plant with `margin` beyond the least fitting one; negative when none does.
double least_fitting_move(const PlantFit& fit, const Vec3& dir_ws, double max_move, double margin) {
  const int steps = static_cast<int>(std::floor(max_move / kSearchStep + 1e-9));
  for (int k = 1; k <= steps; ++k) {
    double hi = k * kSearchStep;
    if (!fit.fits(dir_ws * hi, fit.search_frames())) continue;
    double lo = (k - 1) * kSearchStep;
    while (hi - lo > kFitPrecision) {
      const double mid = 0.5 * (lo + hi);
      (fit.fits(dir_ws * mid, fit.search_frames()) ? hi : lo) = mid;
    }
    // The frames between the searched ones may need a little more.
    for (double move = hi + margin; move <= max_move + margin; move += kSearchStep)
      if (fit.fits(dir_ws * move, fit.all_frames())) return move;
    return -1.0;
  }
  return -1.0;
}

// The foot's horizontal direction (unit) on frame f: ankle to ball, else (a foot with no ball,
// its mesh on the shin) ankle to the middle of its sole vertices; zero when neither has length.
Vec3 foot_direction(const PlantPlacementJob& job, int f) {
  Vec3 along = job.feet->toe[f] - job.feet->ankle[f];
  const std::size_t sole = job.foot->sole_vertices.size();
  if (!(std::hypot(along.x, along.z) > 1e-6) && !job.sole_ws.empty() && sole > 0) {
    Vec3 middle(0.0);
    for (std::size_t k = 0; k < sole; ++k)
      middle += job.sole_ws[static_cast<std::size_t>(f) * sole + k];
    along = middle / static_cast<double>(sole) - job.feet->ankle[f];
  }
  const double length = std::hypot(along.x, along.z);
  return length > 1e-6 ? Vec3(along.x / length, 0.0, along.z / length) : Vec3(0.0);
}

// A plant of a foot with no ball (its direction from the mesh is no heel-to-toe line) moved by
// the least fitting move of kFreeDirections directions around; `forward_ws` (unit or zero)
// tells backwards from forwards. False when none fits.
bool place_any_direction(const PlantFit& fit, const PlantPlacementJob& job, const Vec3& forward_ws,
                         PlacedPlant& placed) {
  double best = -1.0;
  for (int k = 0; k < kFreeDirections; ++k) {
    const double angle = 2.0 * kPi * k / kFreeDirections;
    const Vec3 dir(std::cos(angle), 0.0, std::sin(angle));
    const double limit = best >= 0 ? best - kSearchStep : job.max_move_m;
    const double move = least_fitting_move(fit, dir, limit, job.margin_m);
    if (move < 0 || (best >= 0 && !(move < best))) continue;
    best = move;
    placed.move_ws = dir * move;
    placed.backwards = !(glm::dot(dir, forward_ws) > 0);
  }
  return best >= 0;
}

// Places one plant (see the header); its `move_ws` stays zero when it needs no move.
PlacedPlant place_plant(const PlantPlacementJob& job, const Interval& plant,
                        std::vector<double>& excess_per_frame) {
  PlacedPlant placed;
  placed.first = plant.first;
  placed.last = plant.last;
  const PlantFit fit(job, plant.first, plant.last);
  // A plant proven level stays, as excess() would tell (excess_m is read only above tolerance_m).
  if (fit.surely_level()) return placed;
  placed.excess_m = fit.excess(Vec3(0.0), fit.all_frames(), &excess_per_frame);
  if (!(placed.excess_m > job.tolerance_m)) return placed;
  const Vec3 along = job.feet->toe[plant.first] - job.feet->ankle[plant.first];
  const Vec3 flat(along.x, 0.0, along.z);
  const double length = glm::length(flat);
  if (length > 1e-6) {
    const Vec3 dir = flat / length;
    const double back = least_fitting_move(fit, -dir, job.max_move_m, job.margin_m);
    // Forwards only where it is shorter than backwards.
    const double forward_limit = back >= 0 ? back - kSearchStep : job.max_move_m;
    const double forward = least_fitting_move(fit, dir, forward_limit, job.margin_m);
    if (forward >= 0 && (back < 0 || forward < back)) {
      placed.move_ws = dir * forward;
      placed.backwards = false;
      return placed;
    }
    if (back >= 0) {
      placed.move_ws = -dir * back;
      return placed;
    }
  } else if (!job.sole_ws.empty() &&
             place_any_direction(fit, job, foot_direction(job, plant.first), placed)) {
    return placed;
  }
  placed.blocked = true;
  return placed;
}

// Per frame: each plant's move on its frames; in each swing the move goes from the plant before
// (zero before the first) to the plant after (zero after the last) over at most `ease` frames,
// just before the plant after (just after the plant before, for the swing that ends the clip).
std::vector<Vec3> eased_offsets(const std::vector<Interval>& plants, const std::vector<Vec3>& moves,
                                int frames, const std::vector<int>& ease_of) {
  std::vector<Vec3> out(static_cast<std::size_t>(frames), Vec3(0.0));
  const int n = static_cast<int>(plants.size());
  for (int i = 0; i < n; ++i)
    std::fill(out.begin() + plants[i].first, out.begin() + plants[i].last + 1, moves[i]);
  for (int g = 0; g <= n; ++g) {
    const int gap_first = g > 0 ? plants[g - 1].last + 1 : 0;
    const int gap_end = g < n ? plants[g].first : frames;  // one past the gap
    const Vec3 from = g > 0 ? moves[g - 1] : Vec3(0.0);
    const Vec3 to = g < n ? moves[g] : Vec3(0.0);
    const int length = gap_end - gap_first;
    if (length <= 0) continue;
    const int ease = g < n ? ease_of[g] : ease_of.empty() ? 1 : ease_of[g - 1];
    const int window = std::min(length, std::max(1, ease));
    const int start = g < n ? gap_end - window : gap_first;
    for (int f = gap_first; f < gap_end; ++f) {
      const double t = std::clamp(static_cast<double>(f - start + 1) / (window + 1), 0.0, 1.0);
      out[f] = from + (to - from) * smootherstep(t);
    }
  }
  return out;
}

// Per plant: the frames of the swing before it its move may be eased over, at most `ease`: a
// move forwards starts only after the swing foot last stood beyond where the moved plant puts it
// (a run cycle's foot that sweeps past its plant and back before it lands would be thrown beyond
// reach, the knee snapping straight).
std::vector<int> ease_windows(const std::vector<Interval>& plants,
                              const std::vector<PlacedPlant>& placed, std::span<const Vec3> ankle,
                              int ease) {
  std::vector<int> out(plants.size(), ease);
  for (const PlacedPlant& p : placed) {
    if (p.blocked || p.backwards) continue;
    const auto it = std::find_if(plants.begin(), plants.end(),
                                 [&](const Interval& i) { return i.first == p.first; });
    const auto g = static_cast<std::size_t>(it - plants.begin());
    const int gap_first = g > 0 ? plants[g - 1].last + 1 : 0;
    const double length = glm::length(p.move_ws);
    const Vec3 d = p.move_ws / length;
    for (int f = p.first - 1; f >= std::max(gap_first, p.first - ease); --f)
      if (glm::dot(ankle[f] - ankle[p.first], d) > length) {
        out[g] = std::max(1, p.first - f - 1);
        break;
      }
  }
  return out;
}

}  // namespace

bool no_plant_can_move(const Terrain& terrain, double floor_y, double tolerance_m) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (!(terrain.held_margin(0.0, 0.0) == kInf) || !std::isfinite(floor_y)) return false;
  const double highest = std::max(terrain.bounds_max().y, floor_y);
  const double lowest = std::min(terrain.bounds_min().y, floor_y);
  // Rounding is monotone: a difference of heights within [lowest, highest] is at most this.
  return highest - lowest <= tolerance_m;
}

PlantPlacement PlantPlacementJob::run() const {
  PlantPlacement result;
  const int frames = static_cast<int>(planted.size());
  const std::vector<Interval> plants = contact_intervals(planted);
  std::vector<Vec3> moves(plants.size(), Vec3(0.0));
  bool any_move = false;
  std::vector<double> excess;
  for (std::size_t i = 0; i < plants.size(); ++i) {
    PlacedPlant placed = place_plant(*this, plants[i], excess);
    if (!(placed.excess_m > tolerance_m)) continue;
    moves[i] = placed.move_ws;
    any_move = any_move || !placed.blocked;
    if (placed.blocked) {
      result.blocked_excess_m.resize(static_cast<std::size_t>(frames), 0.0);
      for (int f = placed.first; f <= placed.last; ++f)
        result.blocked_excess_m[f] =
            excess[f - placed.first] > fit_m ? excess[f - placed.first] : 0;
    }
    result.plants.push_back(placed);
  }
  if (any_move)
    result.offset_ws = eased_offsets(plants, moves, frames,
                                     ease_windows(plants, result.plants, feet->ankle, ease_frames));
  return result;
}

void apply_plant_placement(const PlantPlacement& placement, FootTrack& feet) {
  for (std::size_t f = 0; f < placement.offset_ws.size(); ++f) {
    feet.ankle[f] += placement.offset_ws[f];
    feet.toe[f] += placement.offset_ws[f];
  }
}

namespace {

// Blocked frames not already unreachable for another reason, as ranges.
std::vector<UnreachableRange> blocked_ranges(const std::vector<double>& excess,
                                             const std::vector<UnreachableRange>& existing) {
  std::vector<char> taken(excess.size(), 0);
  for (const UnreachableRange& r : existing)
    for (int f = r.first; f <= r.last; ++f) taken[f] = 1;
  std::vector<UnreachableRange> ranges;
  for (int f = 0; f < static_cast<int>(excess.size()); ++f) {
    if (!(excess[f] > 0) || taken[f]) continue;
    if (ranges.empty() || ranges.back().last != f - 1)
      ranges.push_back({f, f, excess[f], f, "blocked"});
    UnreachableRange& r = ranges.back();
    r.last = f;
    if (excess[f] > r.max_shortfall_m) {
      r.max_shortfall_m = excess[f];
      r.worst_frame = f;
    }
  }
  return ranges;
}

}  // namespace

void report_plant_placement(const PlantPlacement& placement, LegDiagnostics& leg) {
  for (const PlacedPlant& p : placement.plants) {
    if (p.blocked) continue;
    PlantMove move;
    move.first = p.first;
    move.last = p.last;
    move.move_m = glm::length(p.move_ws);
    const Vec3 dir = p.move_ws / move.move_m;
    move.direction_x = dir.x;
    move.direction_z = dir.z;
    move.along = p.backwards ? "backward" : "forward";
    move.excess_m = p.excess_m;
    leg.plant_moves.push_back(move);
  }
  if (placement.blocked_excess_m.empty()) return;
  for (const UnreachableRange& r : blocked_ranges(placement.blocked_excess_m, leg.unreachable)) {
    leg.unreachable_frames += r.last - r.first + 1;
    if (r.max_shortfall_m > leg.max_shortfall_m) {
      leg.max_shortfall_m = r.max_shortfall_m;
      leg.worst_frame = r.worst_frame;
    }
    leg.unreachable.push_back(r);
  }
  std::stable_sort(
      leg.unreachable.begin(), leg.unreachable.end(),
      [](const UnreachableRange& a, const UnreachableRange& b) { return a.first < b.first; });
}

}  // namespace ikfix::core
