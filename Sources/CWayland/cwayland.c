#include "cwayland.h"

#include <stdlib.h>
#include <string.h>

struct cwl_sink {
    cwl_event_handler handler;
    void *context;
};

struct cwl_sink *cwl_sink_new(cwl_event_handler handler, void *context) {
    struct cwl_sink *sink = calloc(1, sizeof *sink);
    if (sink) {
        sink->handler = handler;
        sink->context = context;
    }
    return sink;
}

void cwl_sink_free(struct cwl_sink *sink) { free(sink); }

static void emit(struct cwl_sink *sink, struct cwl_event event) { sink->handler(sink->context, &event); }

static uint32_t object_id(void *proxy) { return wl_proxy_get_id((struct wl_proxy *)proxy); }

// MARK: registry

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                            uint32_t version) {
    (void)registry;
    emit(data, (struct cwl_event){.kind = CWL_GLOBAL, .name = name, .text = interface, .version = version});
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)registry;
    emit(data, (struct cwl_event){.kind = CWL_GLOBAL_REMOVE, .name = name});
}

static const struct wl_registry_listener registry_listener = {
    .global = registry_global,
    .global_remove = registry_global_remove,
};

struct wl_registry *cwl_registry(struct wl_display *display, struct cwl_sink *sink) {
    struct wl_registry *registry = wl_display_get_registry(display);
    if (registry) wl_registry_add_listener(registry, &registry_listener, sink);
    return registry;
}

struct wl_seat *cwl_bind_seat(struct wl_registry *registry, uint32_t name) {
    // No listener: its events (capabilities, name) are not needed and libwayland drops them.
    return wl_registry_bind(registry, name, &wl_seat_interface, 1);
}

// MARK: toplevels

static void toplevel_event(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle, enum cwl_event_kind kind,
                           const char *text, int activated) {
    emit(data, (struct cwl_event){.kind = kind, .id = object_id(handle), .toplevel = handle, .text = text,
                                  .activated = activated});
}

static void toplevel_title(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle, const char *title) {
    toplevel_event(data, handle, CWL_TOPLEVEL_TITLE, title, 0);
}

static void toplevel_app_id(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle, const char *app_id) {
    toplevel_event(data, handle, CWL_TOPLEVEL_APP_ID, app_id, 0);
}

static void toplevel_output_enter(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle,
                                  struct wl_output *output) {
    (void)data, (void)handle, (void)output;
}

static void toplevel_output_leave(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle,
                                  struct wl_output *output) {
    (void)data, (void)handle, (void)output;
}

static void toplevel_state(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle, struct wl_array *state) {
    int activated = 0;
    const uint32_t *entry;
    wl_array_for_each(entry, state) {
        if (*entry == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED) activated = 1;
    }
    toplevel_event(data, handle, CWL_TOPLEVEL_STATE, NULL, activated);
}

static void toplevel_done(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle) {
    toplevel_event(data, handle, CWL_TOPLEVEL_DONE, NULL, 0);
}

static void toplevel_closed(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle) {
    toplevel_event(data, handle, CWL_TOPLEVEL_CLOSED, NULL, 0);
}

static void toplevel_parent(void *data, struct zwlr_foreign_toplevel_handle_v1 *handle,
                            struct zwlr_foreign_toplevel_handle_v1 *parent) {
    (void)data, (void)handle, (void)parent;
}

static const struct zwlr_foreign_toplevel_handle_v1_listener toplevel_listener = {
    .title = toplevel_title,
    .app_id = toplevel_app_id,
    .output_enter = toplevel_output_enter,
    .output_leave = toplevel_output_leave,
    .state = toplevel_state,
    .done = toplevel_done,
    .closed = toplevel_closed,
    .parent = toplevel_parent,
};

static void manager_toplevel(void *data, struct zwlr_foreign_toplevel_manager_v1 *manager,
                             struct zwlr_foreign_toplevel_handle_v1 *handle) {
    (void)manager;
    // Listened to before this returns: its first events come after this one.
    zwlr_foreign_toplevel_handle_v1_add_listener(handle, &toplevel_listener, data);
    toplevel_event(data, handle, CWL_TOPLEVEL_NEW, NULL, 0);
}

static void manager_finished(void *data, struct zwlr_foreign_toplevel_manager_v1 *manager) {
    (void)manager;
    emit(data, (struct cwl_event){.kind = CWL_MANAGER_FINISHED});
}

static const struct zwlr_foreign_toplevel_manager_v1_listener manager_listener = {
    .toplevel = manager_toplevel,
    .finished = manager_finished,
};

struct zwlr_foreign_toplevel_manager_v1 *cwl_bind_toplevel_manager(struct wl_registry *registry, uint32_t name,
                                                                   uint32_t version, struct cwl_sink *sink) {
    // The interface's address is the C global itself: a copy would be read
    // later by libwayland (the Swift pitfall this file exists for).
    struct zwlr_foreign_toplevel_manager_v1 *manager =
        wl_registry_bind(registry, name, &zwlr_foreign_toplevel_manager_v1_interface, version);
    if (manager) zwlr_foreign_toplevel_manager_v1_add_listener(manager, &manager_listener, sink);
    return manager;
}

// MARK: sync

static void sync_done(void *data, struct wl_callback *callback, uint32_t serial) {
    (void)serial;
    uint32_t id = object_id(callback);
    wl_callback_destroy(callback);
    emit(data, (struct cwl_event){.kind = CWL_SYNC_DONE, .id = id});
}

static const struct wl_callback_listener sync_listener = {.done = sync_done};

uint32_t cwl_sync(struct wl_display *display, struct cwl_sink *sink) {
    struct wl_callback *callback = wl_display_sync(display);
    if (!callback) return 0;
    wl_callback_add_listener(callback, &sync_listener, sink);
    return object_id(callback);
}
