// C boundary over toml++: no C++ exception may cross it, so every entry point
// catches everything and reports through its return values.
#include "ctoml.h"

#include <toml++/toml.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

struct ctoml_document {
    toml::table root;
    /// Dates and times written out; a deque, so adding one moves none of the others.
    std::deque<std::string> texts;
    std::vector<ctoml_node> nodes;
};

namespace {

char *copy_to_malloc(std::string_view text) noexcept {
    char *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy != nullptr) {
        std::memcpy(copy, text.data(), text.size());
        copy[text.size()] = '\0';
    }
    return copy;
}

// Best effort, since it may run after an allocation failure.
void fail(ctoml_error *error, unsigned long line, unsigned long column, std::string_view message) noexcept {
    error->line = line;
    error->column = column;
    error->message = copy_to_malloc(message);
}

// Written as toml++ writes it ("1979-05-27", "22:30:00", "1979-05-27T07:32:00Z").
template <typename T> std::string_view written(ctoml_document &document, const T &value) {
    std::ostringstream text;
    text << value;
    return document.texts.emplace_back(std::move(text).str());
}

// Recurses once per level; the caller's depth bound (TOMLNesting) keeps that small.
void append(ctoml_document &document, const toml::node &node, const toml::key *key) {
    ctoml_node out{};
    if (key != nullptr) {
        out.key = key->str().data();
        out.key_length = key->str().size();
    }
    auto set_text = [&out](std::string_view text) {
        out.text = text.data();
        out.text_length = text.size();
    };
    switch (node.type()) {
    case toml::node_type::table: out.kind = CTOML_TABLE; out.count = node.as_table()->size(); break;
    case toml::node_type::array: out.kind = CTOML_ARRAY; out.count = node.as_array()->size(); break;
    case toml::node_type::string: out.kind = CTOML_STRING; set_text(node.as_string()->get()); break;
    case toml::node_type::integer: out.kind = CTOML_INTEGER; out.integer = node.as_integer()->get(); break;
    case toml::node_type::floating_point: out.kind = CTOML_FLOAT; out.number = node.as_floating_point()->get(); break;
    case toml::node_type::boolean: out.kind = CTOML_BOOLEAN; out.boolean = node.as_boolean()->get(); break;
    case toml::node_type::date: out.kind = CTOML_DATE_TIME; set_text(written(document, node.as_date()->get())); break;
    case toml::node_type::time: out.kind = CTOML_DATE_TIME; set_text(written(document, node.as_time()->get())); break;
    case toml::node_type::date_time:
        out.kind = CTOML_DATE_TIME;
        set_text(written(document, node.as_date_time()->get()));
        break;
    case toml::node_type::none: throw std::logic_error("a node of no type in the parsed document");
    }
    document.nodes.push_back(out);
    if (const toml::table *table = node.as_table()) {
        for (auto &&[member_key, member] : *table) append(document, member, &member_key);
    } else if (const toml::array *array = node.as_array()) {
        for (const toml::node &element : *array) append(document, element, nullptr);
    }
}

} // namespace

extern "C" ctoml_document *ctoml_parse(const char *text, size_t length, const ctoml_node **nodes, size_t *count,
                                       ctoml_error *error) {
    *error = ctoml_error{};
    *nodes = nullptr;
    *count = 0;
    ctoml_document *document = nullptr;
    try {
        document = new ctoml_document{toml::parse(std::string_view(text, length)), {}, {}};
        append(*document, document->root, nullptr);
        *nodes = document->nodes.data();
        *count = document->nodes.size();
        return document;
    } catch (const toml::parse_error &failure) {
        const toml::source_position begin = failure.source().begin;
        fail(error, begin.line, begin.column, failure.description());
    } catch (const std::bad_alloc &) {
        fail(error, 0, 0, "out of memory while parsing");
    } catch (const std::exception &failure) {
        fail(error, 1, 1, failure.what());
    } catch (...) {
        fail(error, 1, 1, "unknown error in the TOML parser");
    }
    delete document;
    return nullptr;
}

extern "C" void ctoml_document_free(ctoml_document *document) { delete document; }

extern "C" void ctoml_free(char *text) { std::free(text); }
