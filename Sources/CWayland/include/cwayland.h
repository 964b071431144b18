// Wayland client interop for the wlroots probe (BlockerProbes/Wayland.swift
// is its only user). libwayland takes listeners as C structs of function
// pointers and interfaces as addresses of C globals; both stay here, so Swift
// sees plain calls and one callback that receives every event as a value.
#pragma once

#include <stdint.h>
#include <wayland-client.h>
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"

/// What happened; `cwl_event` says to which object.
enum cwl_event_kind {
    /// The registry announced a global: `name`, `text` (its interface), `version`.
    CWL_GLOBAL = 1,
    /// A global went away: `name`.
    CWL_GLOBAL_REMOVE,
    /// The manager announced a toplevel: `toplevel` (new), `id` its object id.
    CWL_TOPLEVEL_NEW,
    /// A toplevel's title / app_id: `text` (UTF-8 as the compositor sent it).
    CWL_TOPLEVEL_TITLE,
    CWL_TOPLEVEL_APP_ID,
    /// A toplevel's state array: `activated` is 1 when it holds `activated`.
    CWL_TOPLEVEL_STATE,
    /// The end of a toplevel's batch of changes: apply them now, together.
    CWL_TOPLEVEL_DONE,
    /// The toplevel is gone (the client must destroy its handle).
    CWL_TOPLEVEL_CLOSED,
    /// The compositor stopped sending toplevels (after `stop`, or going away).
    CWL_MANAGER_FINISHED,
    /// A `cwl_sync` request was answered: `id` is what `cwl_sync` returned.
    CWL_SYNC_DONE,
};

struct cwl_event {
    enum cwl_event_kind kind;
    /// The toplevel's object id (CWL_TOPLEVEL_*), or the sync request's (CWL_SYNC_DONE).
    uint32_t id;
    /// The toplevel handle (CWL_TOPLEVEL_*); NULL otherwise.
    struct zwlr_foreign_toplevel_handle_v1 *toplevel;
    /// Registry name (CWL_GLOBAL, CWL_GLOBAL_REMOVE).
    uint32_t name;
    uint32_t version;
    /// Valid only during the callback.
    const char *text;
    int activated;
};

typedef void (*cwl_event_handler)(void *context, const struct cwl_event *event);

/// Where every listener of one connection sends its events.
struct cwl_sink;

/// NULL when out of memory. Free it after the display is disconnected.
struct cwl_sink *cwl_sink_new(cwl_event_handler handler, void *context);
void cwl_sink_free(struct cwl_sink *sink);

/// wl_display_get_registry with its listener (CWL_GLOBAL, CWL_GLOBAL_REMOVE).
struct wl_registry *cwl_registry(struct wl_display *display, struct cwl_sink *sink);

/// Binds the foreign-toplevel manager (`name` from CWL_GLOBAL) at `version`
/// (1…3) and follows it and each toplevel it announces.
struct zwlr_foreign_toplevel_manager_v1 *cwl_bind_toplevel_manager(struct wl_registry *registry, uint32_t name,
                                                                   uint32_t version, struct cwl_sink *sink);

/// Binds a wl_seat at version 1 (only needed as an argument: `activate`).
struct wl_seat *cwl_bind_seat(struct wl_registry *registry, uint32_t name);

/// wl_display_sync: CWL_SYNC_DONE with the returned id once the compositor
/// has handled every request sent before it; 0 when it could not be sent.
uint32_t cwl_sync(struct wl_display *display, struct cwl_sink *sink);
