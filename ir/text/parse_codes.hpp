#pragma once
// The stable diagnostic codes of the text format (prefix P). docs/format.md has the table; a test
// checks that every code listed here is documented there.

#include <array>
#include <string_view>

namespace gridcheck::ir::parse_code {

// -- lexical
inline constexpr std::string_view kUnexpectedCharacter = "P001";
inline constexpr std::string_view kUnterminatedString = "P002";
inline constexpr std::string_view kBadEscape = "P003";
inline constexpr std::string_view kMalformedNumber = "P004";
inline constexpr std::string_view kIdentifierTooLong = "P005";
inline constexpr std::string_view kStringTooLong = "P006";
inline constexpr std::string_view kFileTooLarge = "P007";
inline constexpr std::string_view kCannotReadFile = "P008";
// -- syntax
inline constexpr std::string_view kUnexpectedToken = "P010";
inline constexpr std::string_view kUnknownDirective = "P011";
inline constexpr std::string_view kUnknownStatement = "P012";
inline constexpr std::string_view kUnclosedBracket = "P013";
inline constexpr std::string_view kNestingTooDeep = "P014";
inline constexpr std::string_view kUnknownFunction = "P015";
inline constexpr std::string_view kWrongArgumentCount = "P016";
inline constexpr std::string_view kUnknownAxis = "P017";
inline constexpr std::string_view kUnknownOrdering = "P018";
inline constexpr std::string_view kUnknownCollectiveOp = "P019";
inline constexpr std::string_view kUnknownType = "P020";
inline constexpr std::string_view kUnknownAccess = "P021";
inline constexpr std::string_view kUnknownMemoryKind = "P022";
inline constexpr std::string_view kDuplicateSection = "P023";
inline constexpr std::string_view kDuplicateAttribute = "P024";
inline constexpr std::string_view kMissingSection = "P025";
inline constexpr std::string_view kMissingBinding = "P026";
inline constexpr std::string_view kTooManyErrors = "P027";
// -- literals and limits
inline constexpr std::string_view kLiteralOutOfRange = "P030";
inline constexpr std::string_view kLiteralWrongType = "P031";
inline constexpr std::string_view kBufferTooLarge = "P032";
inline constexpr std::string_view kWorkgroupSizeOutOfRange = "P033";
inline constexpr std::string_view kGridOutOfRange = "P034";
inline constexpr std::string_view kFixpointOutOfRange = "P035";
inline constexpr std::string_view kCountOutOfRange = "P036";
inline constexpr std::string_view kBadByteRange = "P037";
// -- case data
inline constexpr std::string_view kUnknownBuffer = "P040";
inline constexpr std::string_view kDuplicateInput = "P041";
inline constexpr std::string_view kInputForWorkgroupBuffer = "P042";
inline constexpr std::string_view kValueCountMismatch = "P043";
inline constexpr std::string_view kRuntimeSizedNeedsCount = "P044";
inline constexpr std::string_view kCountMismatch = "P045";
inline constexpr std::string_view kUnknownOracle = "P046";
inline constexpr std::string_view kUnknownVerdict = "P047";
inline constexpr std::string_view kDuplicateExpectation = "P048";
inline constexpr std::string_view kExpectForWorkgroupBuffer = "P049";
inline constexpr std::string_view kSeriesOfBool = "P050";
inline constexpr std::string_view kLaunchesForNonSplitOracle = "P051";
inline constexpr std::string_view kUnknownMemoryCheck = "P056";
inline constexpr std::string_view kUnknownBarrierMemory = "P057";

inline constexpr std::array kAll = {
    kUnexpectedCharacter, kUnterminatedString, kBadEscape, kMalformedNumber, kIdentifierTooLong,
    kStringTooLong, kFileTooLarge, kCannotReadFile, kUnexpectedToken, kUnknownDirective,
    kUnknownStatement, kUnclosedBracket, kNestingTooDeep, kUnknownFunction, kWrongArgumentCount,
    kUnknownAxis, kUnknownOrdering, kUnknownCollectiveOp, kUnknownType, kUnknownAccess,
    kUnknownMemoryKind, kDuplicateSection, kDuplicateAttribute, kMissingSection, kMissingBinding,
    kTooManyErrors, kLiteralOutOfRange, kLiteralWrongType, kBufferTooLarge, kWorkgroupSizeOutOfRange,
    kGridOutOfRange, kFixpointOutOfRange, kCountOutOfRange, kBadByteRange, kUnknownBuffer,
    kDuplicateInput, kInputForWorkgroupBuffer, kValueCountMismatch, kRuntimeSizedNeedsCount,
    kCountMismatch, kUnknownOracle, kUnknownVerdict, kDuplicateExpectation, kExpectForWorkgroupBuffer,
    kSeriesOfBool, kLaunchesForNonSplitOracle, kUnknownMemoryCheck, kUnknownBarrierMemory,
};

}  // namespace gridcheck::ir::parse_code
