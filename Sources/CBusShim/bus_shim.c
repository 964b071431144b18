#include "bus_shim.h"
#include <stdlib.h>
#include <string.h>

const uint64_t bus_shim_flag_unprivileged = SD_BUS_VTABLE_UNPRIVILEGED;

// sd-bus wants parameter names as one block of NUL-terminated names, the
// in-names followed by the out-names (what SD_BUS_PARAM builds): "a,b" + "c" → "a\0b\0c\0".
static char *join_names(const char *first, const char *second) {
    size_t a = first ? strlen(first) : 0, b = second ? strlen(second) : 0;
    char *block = calloc(a + b + 3, 1);
    if (!block) return NULL;
    char *out = block;
    const char *parts[2] = { first, second };
    for (int i = 0; i < 2; i++) {
        const char *p = parts[i];
        if (!p || !*p) continue;
        for (; *p; p++) *out++ = (*p == ',') ? '\0' : *p;
        *out++ = '\0';
    }
    return block;
}

static char *copy(const char *text, int *failed) {
    char *result = strdup(text ? text : "");
    if (!result) *failed = 1;
    return result;
}

// Every string the vtable points to is a copy it owns, so callers may pass temporaries.
sd_bus_vtable *bus_shim_vtable_new(const bus_shim_method *methods, size_t method_count,
                                   const bus_shim_signal *signals, size_t signal_count,
                                   sd_bus_message_handler_t handler) {
    // calloc: sd-bus requires unused parts of each entry to be zero.
    sd_bus_vtable *table = calloc(method_count + signal_count + 2, sizeof(sd_bus_vtable));
    if (!table) return NULL;
    size_t e = 0;
    int failed = 0;

    table[e].type = _SD_BUS_VTABLE_START;
    table[e].x.start.element_size = sizeof(sd_bus_vtable);
    table[e].x.start.features = _SD_BUS_VTABLE_PARAM_NAMES;
    table[e].x.start.vtable_format_reference = &sd_bus_object_vtable_format;
    e++;
    for (size_t i = 0; i < method_count; i++, e++) {
        table[e].type = _SD_BUS_VTABLE_METHOD;
        table[e].flags = methods[i].flags;
        table[e].x.method.member = copy(methods[i].member, &failed);
        table[e].x.method.signature = copy(methods[i].signature, &failed);
        table[e].x.method.result = copy(methods[i].result, &failed);
        table[e].x.method.handler = handler;
        table[e].x.method.names = join_names(methods[i].in_names, methods[i].out_names);
        if (!table[e].x.method.names) failed = 1;
    }
    for (size_t i = 0; i < signal_count; i++, e++) {
        table[e].type = _SD_BUS_VTABLE_SIGNAL;
        table[e].flags = signals[i].flags;
        table[e].x.signal.member = copy(signals[i].member, &failed);
        table[e].x.signal.signature = copy(signals[i].signature, &failed);
        table[e].x.signal.names = join_names(signals[i].names, NULL);
        if (!table[e].x.signal.names) failed = 1;
    }
    table[e].type = _SD_BUS_VTABLE_END;
    if (failed) { bus_shim_vtable_free(table); return NULL; }
    return table;
}

void bus_shim_vtable_free(sd_bus_vtable *table) {
    if (!table) return;
    for (sd_bus_vtable *entry = table; entry->type != _SD_BUS_VTABLE_END; entry++) {
        if (entry->type == _SD_BUS_VTABLE_METHOD) {
            free((char *) entry->x.method.member);
            free((char *) entry->x.method.signature);
            free((char *) entry->x.method.result);
            free((char *) entry->x.method.names);
        } else if (entry->type == _SD_BUS_VTABLE_SIGNAL) {
            free((char *) entry->x.signal.member);
            free((char *) entry->x.signal.signature);
            free((char *) entry->x.signal.names);
        }
    }
    free(table);
}
