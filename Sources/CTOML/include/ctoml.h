// A tiny C API over toml++ so Swift never sees C++: TOML text in, JSON text
// (or a positioned error) out. Only Sources/BlockerConfig/ConfigFile.swift uses it.
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Parses `length` bytes of TOML (UTF-8; need not be NUL-terminated).
///
/// On success returns the document as JSON text (malloc'd, NUL-terminated) and
/// sets `*error` to NULL. The JSON is compact; dates and times appear as JSON
/// strings ("22:30:00"), infinities and NaN as "Infinity", "-Infinity", "NaN".
///
/// On failure returns NULL and sets `*error` to a malloc'd "LINE:COLUMN: message"
/// (1-based), or to NULL when even that could not be allocated.
///
/// Free both results with `ctoml_free`.
char *_Nullable ctoml_parse_to_json(const char *_Nonnull text, size_t length,
                                    char *_Nullable *_Nonnull error);

/// Frees a string returned by `ctoml_parse_to_json`.
void ctoml_free(char *_Nullable text);

#ifdef __cplusplus
}
#endif
