// C boundary over RE2: no C++ exception may cross it (RE2 itself throws only
// std::bad_alloc), so every entry point catches everything.
#include "cre2.h"

#include <re2/re2.h>

#include <cstdlib>
#include <cstring>
#include <string>

struct cre2_regex {
    re2::RE2 re;
    explicit cre2_regex(re2::StringPiece pattern, const re2::RE2::Options &options) : re(pattern, options) {}
};

namespace {

char *copy_to_malloc(const char *text, size_t length) noexcept {
    char *copy = static_cast<char *>(std::malloc(length + 1));
    if (copy != nullptr) {
        std::memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}

} // namespace

extern "C" cre2_regex *cre2_compile(const char *pattern, size_t length, bool case_insensitive,
                                    int64_t max_mem, char **error) {
    *error = nullptr;
    try {
        re2::RE2::Options options;  // UTF-8, RE2 syntax
        options.set_case_sensitive(!case_insensitive);
        options.set_max_mem(max_mem);
        options.set_log_errors(false);   // the caller reports the error, not stderr
        options.set_never_capture(true); // only "does it match": the fastest engines apply
        auto *regex = new cre2_regex(re2::StringPiece(pattern, length), options);
        if (!regex->re.ok()) {
            const std::string &message = regex->re.error();
            *error = copy_to_malloc(message.data(), message.size());
            delete regex;
            return nullptr;
        }
        return regex;
    } catch (...) {
        static const char message[] = "out of memory while compiling the regex";
        *error = copy_to_malloc(message, sizeof message - 1);
        return nullptr;
    }
}

extern "C" bool cre2_partial_match(const cre2_regex *regex, const char *text, size_t length) {
    try {
        return re2::RE2::PartialMatch(re2::StringPiece(text, length), regex->re);
    } catch (...) {
        return false;
    }
}

extern "C" void cre2_free(cre2_regex *regex) { delete regex; }

extern "C" void cre2_free_error(char *error) { std::free(error); }
