// A ready-made model's draft subject (duet::models::detail::draft_subject, its text built in the
// library by duet/detail/model_text.hpp): the adapter struct, the subject made as the check
// makes it, and the calls the binding does not have left out.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include <duet/models/binding.hpp>

namespace drafted {

struct Plain {
  using Sut = int;
};
struct Made {
  using Sut = int;
  static std::unique_ptr<int> make() { return std::make_unique<int>(3); }
};

}  // namespace drafted

namespace {

TEST(DraftSubject, MakesTheSubjectAsTheCheckDoesAndCallsItThroughTheBinding) {
  EXPECT_EQ(duet::models::detail::draft_subject<drafted::Plain>("q", {"void push(int x) { B::push(s, x); }"}),
            "struct Bound {  // the subject, called through drafted::Plain as duet called it\n"
            "  using B = drafted::Plain;\n"
            "  B::Sut& s;\n"
            "  void push(int x) { B::push(s, x); }\n"
            "};\n"
            "auto q_made = std::make_unique<drafted::Plain::Sut>();  // #include <memory>\n"
            "Bound q{*q_made};");
  EXPECT_EQ(duet::models::detail::draft_subject<drafted::Made>("m", {}),
            "struct Bound {  // the subject, called through drafted::Made as duet called it\n"
            "  using B = drafted::Made;\n"
            "  B::Sut& s;\n"
            "};\n"
            "auto m_made = drafted::Made::make();  // #include <memory>\n"
            "Bound m{*m_made};");
}

TEST(DraftSubject, LeavesOutTheCallsTheBindingDoesNotHave) {
  const std::string text = duet::models::detail::draft_subject<drafted::Plain>(
      "q", {"void push(int x) { B::push(s, x); }", nullptr, "int get() { return B::get(s); }", nullptr});
  EXPECT_NE(text.find("  B::Sut& s;\n  void push(int x) { B::push(s, x); }\n  int get() { return B::get(s); }\n};\n"),
            std::string::npos)
      << text;
}

}  // namespace
