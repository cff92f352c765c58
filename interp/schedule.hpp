#pragma once
// The order in which the reference runs workgroups and the invocations inside a workgroup
// (run-until-blocked, Oclgrind style). A race-free program gives the same bytes under every schedule;
// other schedules exist to expose races and schedule dependence.
//
//   in-order      workgroups in linear order (x fastest), invocations by local linear id
//   reversed      both orders reversed
//   shuffle:SEED  a seeded random permutation of the workgroups at every grid phase (between
//                 grid_syncs) and of the invocations at every workgroup phase (between barriers)

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gridcheck::interp {

struct Schedule {
  enum class Kind : std::uint8_t { InOrder, Reversed, Shuffle };
  Kind kind = Kind::InOrder;
  std::uint64_t seed = 0;

  static Schedule in_order() { return {}; }
  static Schedule reversed() { return {Kind::Reversed, 0}; }
  static Schedule shuffle(std::uint64_t seed) { return {Kind::Shuffle, seed}; }

  /// Parses "in-order", "reversed" or "shuffle:SEED" (SEED a decimal u64).
  static std::optional<Schedule> parse(std::string_view text);
  /// The text `parse` accepts.
  std::string to_string() const;
  friend bool operator==(const Schedule&, const Schedule&) = default;
};

/// A deterministic generator of orders for one run.
class OrderGenerator {
 public:
  explicit OrderGenerator(const Schedule& schedule) : schedule_(schedule), state_(schedule.seed) {}
  /// Fills `order` with a permutation of 0..n-1 for the next phase.
  void next(std::vector<std::uint32_t>& order, std::uint32_t n);
  bool is_identity() const { return schedule_.kind == Schedule::Kind::InOrder; }

 private:
  std::uint64_t random();
  Schedule schedule_;
  std::uint64_t state_;
};

}  // namespace gridcheck::interp
