// C boundary over toml++: no C++ exception may cross it, so every entry point
// catches everything and reports through its return values.
#include "ctoml.h"

#include <toml++/toml.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>
#include <string>
#include <string_view>

namespace {

char *copy_to_malloc(const std::string &text) noexcept {
    char *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy != nullptr) {
        std::memcpy(copy, text.data(), text.size());
        copy[text.size()] = '\0';
    }
    return copy;
}

// "LINE:COLUMN: message"; best effort, since it may run after an allocation failure.
char *positioned_error(unsigned long line, unsigned long column, std::string_view message) noexcept {
    try {
        return copy_to_malloc(std::to_string(line) + ":" + std::to_string(column) + ": " +
                              std::string(message));
    } catch (...) {
        return nullptr;
    }
}

} // namespace

extern "C" char *ctoml_parse_to_json(const char *text, size_t length, char **error) {
    *error = nullptr;
    try {
        toml::table document = toml::parse(std::string_view(text, length));
        std::ostringstream json;
        // No indentation: the JSON stays about the size of the TOML.
        const auto flags = toml::json_formatter::default_flags & ~toml::format_flags::indentation;
        json << toml::json_formatter{document, flags};
        char *result = copy_to_malloc(json.str());
        if (result == nullptr) {
            *error = positioned_error(1, 1, "out of memory while converting the document");
        }
        return result;
    } catch (const toml::parse_error &failure) {
        const toml::source_position begin = failure.source().begin;
        *error = positioned_error(begin.line, begin.column, failure.description());
    } catch (const std::exception &failure) {
        *error = positioned_error(1, 1, failure.what());
    } catch (...) {
        *error = positioned_error(1, 1, "unknown error in the TOML parser");
    }
    return nullptr;
}

extern "C" void ctoml_free(char *text) { std::free(text); }
