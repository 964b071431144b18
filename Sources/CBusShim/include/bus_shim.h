#pragma once
// sd-bus pieces that Swift cannot reach directly: the SD_BUS_VTABLE_* macros
// (designated initializers of a bit-field struct) become a function that
// builds the array from plain structs.
#include <systemd/sd-bus.h>
#include <stddef.h>
#include <stdint.h>

/// One method: `in_names`/`out_names` are comma-separated parameter names
/// for introspection ("exercise,reps"), or "" for none.
typedef struct {
    const char *member;
    const char *signature;
    const char *in_names;
    const char *result;
    const char *out_names;
    uint64_t flags;
} bus_shim_method;

/// One signal: `names` as for methods.
typedef struct {
    const char *member;
    const char *signature;
    const char *names;
    uint64_t flags;
} bus_shim_signal;

/// A vtable owning copies of every string; every method calls `handler`
/// (which tells them apart by sd_bus_message_get_member). Free with
/// bus_shim_vtable_free once the object slot is gone. NULL on ENOMEM.
sd_bus_vtable *bus_shim_vtable_new(const bus_shim_method *methods, size_t method_count,
                                   const bus_shim_signal *signals, size_t signal_count,
                                   sd_bus_message_handler_t handler);
void bus_shim_vtable_free(sd_bus_vtable *vtable);

/// SD_BUS_VTABLE_UNPRIVILEGED (a 64-bit enum constant, which imports awkwardly).
extern const uint64_t bus_shim_flag_unprivileged;
