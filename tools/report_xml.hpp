#pragma once
// Text inside an XML 1.0 document (the JUnit report): one escaping function for element text and
// attribute values alike.

#include <string>
#include <string_view>

namespace gridcheck::tools {

/// `text` as XML 1.0 character data, valid inside an element and inside a double- or single-quoted
/// attribute: `& < > " '` become entity references; tab, newline and carriage return become
/// character references (so attribute normalisation keeps them); every other character XML 1.0
/// forbids (C0 controls, U+FFFE, U+FFFF) becomes the visible text `\xNN` / `\u{FFFE}`, and a byte
/// that is not part of well-formed UTF-8 (including encoded surrogates) becomes U+FFFD. The result
/// always parses, and every legal character of `text` is kept.
std::string xml_escape(std::string_view text);

}  // namespace gridcheck::tools
