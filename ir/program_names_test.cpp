// The program's name table: small tables are scanned, larger ones indexed; both must answer alike,
// across the switch and in copies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/program.hpp"

namespace gridcheck::ir {
namespace {

std::string name_number(int i) { return i % 2 == 0 ? "n" + std::to_string(i) : "a_rather_long_name_" + std::to_string(i); }

TEST(IR_ProgramNames, InterningIsStableBelowAndAboveTheScanLimit) {
  Program p;
  std::vector<NameId> ids;
  for (int i = 0; i < 100; ++i) {
    ids.push_back(p.intern(name_number(i)));
    EXPECT_EQ(index_of(ids.back()), static_cast<std::uint32_t>(i));
    for (int j = 0; j <= i; ++j) {  // every name so far, after each growth (across the switch to an index)
      ASSERT_EQ(p.find_name(name_number(j)), ids[static_cast<std::size_t>(j)]) << "after " << i << " names";
      ASSERT_EQ(p.intern(name_number(j)), ids[static_cast<std::size_t>(j)]);
    }
    EXPECT_EQ(p.find_name("absent"), std::nullopt);
    EXPECT_EQ(p.name_count(), static_cast<std::size_t>(i + 1));
  }
  EXPECT_EQ(p.name(ids[57]), name_number(57));
}

TEST(IR_ProgramNames, ACopyFindsTheSameNamesAndGrowsOnItsOwn) {
  for (int count : {3, 40}) {  // a scanned table and an indexed one
    Program p;
    for (int i = 0; i < count; ++i) p.intern(name_number(i));
    Program copy = p;
    const NameId added = copy.intern("only_in_the_copy");
    EXPECT_EQ(index_of(added), static_cast<std::uint32_t>(count));
    EXPECT_EQ(p.find_name("only_in_the_copy"), std::nullopt);
    for (int i = 0; i < count; ++i) EXPECT_EQ(copy.find_name(name_number(i)), p.find_name(name_number(i)));
    const Program compact = copy.compacted();
    EXPECT_EQ(compact.find_name("only_in_the_copy"), added);
  }
}

}  // namespace
}  // namespace gridcheck::ir
