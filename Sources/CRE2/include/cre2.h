// A tiny C API over RE2 so Swift never sees C++: a pattern compiled once,
// then matched anywhere in UTF-8 text in time linear in the text.
// Only Sources/BlockerCore/RE2Regex.swift uses it.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cre2_regex cre2_regex;

/// Compiles `length` bytes of UTF-8 `pattern` (RE2 syntax; need not be
/// NUL-terminated; NULL only when `length` is 0). `max_mem` bounds the memory of the compiled program and
/// of its matching automata, in bytes.
///
/// On success returns the regex and sets `*error` to NULL. On failure returns
/// NULL and sets `*error` to RE2's malloc'd message (NULL when even that could
/// not be allocated); free it with `cre2_free_error`.
cre2_regex *_Nullable cre2_compile(const char *_Nullable pattern, size_t length, bool case_insensitive,
                                   int64_t max_mem, char *_Nullable *_Nonnull error);

/// Whether the regex matches anywhere in `length` bytes of UTF-8 `text`
/// (NULL only when `length` is 0).
bool cre2_partial_match(const cre2_regex *_Nonnull regex, const char *_Nullable text, size_t length);

void cre2_free(cre2_regex *_Nullable regex);
void cre2_free_error(char *_Nullable error);

#ifdef __cplusplus
}
#endif
