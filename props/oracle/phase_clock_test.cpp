// The phase clock (props/oracle/phase_clock.hpp): scopes charge their own time, nested scopes take
// theirs out of the enclosing one, an absorbing scope keeps its nested scopes' time, and nothing is
// recorded without a recorder.
#include "props/oracle/phase_clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace gridcheck::props {
namespace {

using namespace std::chrono_literals;

std::uint64_t ms(std::chrono::milliseconds m) { return static_cast<std::uint64_t>(m.count()) * 1000000u; }

TEST(Props_PhaseClock, NestedScopesTakeTheirTimeOutOfTheEnclosingOne) {
  PhaseTimes times;
  {
    const PhaseRecorder recorder(times);
    const PhaseScope outer(Phase::Reference);
    {
      const PhaseScope inner(Phase::Launch);
      std::this_thread::sleep_for(200ms);
    }
  }
  EXPECT_GE(times[Phase::Launch], ms(200ms));
  EXPECT_LT(times[Phase::Reference], ms(200ms)) << "the nested launch is not the reference's";
  EXPECT_EQ(times.total(), times[Phase::Launch] + times[Phase::Reference] + times[Phase::Other]);
}

TEST(Props_PhaseClock, AnAbsorbingScopeKeepsItsNestedScopesTime) {
  PhaseTimes times;
  {
    const PhaseRecorder recorder(times);
    const PhaseScope waves(Phase::Waves, Nested::Absorb);
    const PhaseScope inner(Phase::Reference);
    std::this_thread::sleep_for(50ms);
    recharge(Phase::Reference, Phase::Compile, 1000);
  }
  EXPECT_GE(times[Phase::Waves], ms(50ms));
  EXPECT_EQ(times[Phase::Reference], 0u);
  EXPECT_EQ(times[Phase::Compile], 0u);
}

TEST(Props_PhaseClock, RechargeMovesMeasuredTimeBetweenPhases) {
  PhaseTimes times;
  {
    const PhaseRecorder recorder(times);
    const PhaseScope launch(Phase::Launch);
    std::this_thread::sleep_for(20ms);
    recharge(Phase::Launch, Phase::Compile, ms(5ms));
    recharge(Phase::Launch, Phase::Pipeline, ms(1000ms));  // more than Launch holds: all of what is left
  }
  EXPECT_EQ(times[Phase::Compile], ms(5ms));
  EXPECT_GE(times[Phase::Pipeline], ms(15ms));
  EXPECT_LT(times[Phase::Launch], ms(5ms)) << "only the time after the recharge";
}

TEST(Props_PhaseClock, WithoutARecorderNothingIsCharged) {  // the silent twin
  PhaseTimes times;
  {
    const PhaseScope scope(Phase::Plan);
    std::this_thread::sleep_for(5ms);
    recharge(Phase::Plan, Phase::Compile, 1000);
  }
  EXPECT_EQ(times.total(), 0u);
  EXPECT_EQ(name_of(Phase::Generate), "generate");
  EXPECT_EQ(name_of(Phase::Other), "other");
}

}  // namespace
}  // namespace gridcheck::props
