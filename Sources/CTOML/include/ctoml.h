// A tiny C API over toml++ so Swift never sees C++: TOML text in, the parsed
// document as typed nodes (or a positioned error) out. Only
// Sources/BlockerConfig/TOMLDocument.swift uses it.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a node holds (closed: Swift switches over it without a default).
typedef enum __attribute__((enum_extensibility(closed))) ctoml_kind {
    CTOML_TABLE,
    CTOML_ARRAY,
    CTOML_STRING,
    CTOML_INTEGER,
    CTOML_FLOAT,
    CTOML_BOOLEAN,
    /// A date, a time or a date-time: `text` is toml++'s writing of it ("22:30:00").
    CTOML_DATE_TIME,
} ctoml_kind;

/// One value of the document. The nodes are in pre-order: a table's members
/// and an array's elements follow it, each with all of its own nodes.
/// Strings are UTF-8 (toml++ checked them), not NUL-terminated, and live as
/// long as the document.
typedef struct ctoml_node {
    ctoml_kind kind;
    /// CTOML_TABLE: how many members; CTOML_ARRAY: how many elements.
    size_t count;
    /// The node's key when it is a member of a table; NULL in an array and for the root.
    const char *_Nullable key;
    size_t key_length;
    /// CTOML_STRING and CTOML_DATE_TIME.
    const char *_Nullable text;
    size_t text_length;
    /// CTOML_INTEGER.
    int64_t integer;
    /// CTOML_FLOAT (may be infinite or NaN).
    double number;
    /// CTOML_BOOLEAN.
    bool boolean;
} ctoml_node;

/// Why a text was refused: 1-based `line` and `column` (0 when the failure has
/// no place in the text) and a malloc'd `message`, NULL when even that could
/// not be allocated.
typedef struct ctoml_error {
    unsigned long line;
    unsigned long column;
    char *_Nullable message;
} ctoml_error;

/// The parsed document that owns the nodes.
typedef struct ctoml_document ctoml_document;

/// Parses `length` bytes of TOML (UTF-8; need not be NUL-terminated).
///
/// On success returns the document, and sets `*nodes` to its `*count` nodes,
/// the root table first. Free it with `ctoml_document_free`.
///
/// On failure returns NULL and fills `*error`; free its message with `ctoml_free`.
///
/// toml++ recurses once per level of nesting (and per part of a dotted key):
/// the caller bounds the depth before it calls this.
ctoml_document *_Nullable ctoml_parse(const char *_Nonnull text, size_t length,
                                      const ctoml_node *_Nullable *_Nonnull nodes, size_t *_Nonnull count,
                                      ctoml_error *_Nonnull error);

void ctoml_document_free(ctoml_document *_Nullable document);

/// Frees an error's message.
void ctoml_free(char *_Nullable text);

#ifdef __cplusplus
}
#endif
