#include <xcb/xcb.h>
#include <xcb/res.h>
#include <xcb/screensaver.h>
#include <xcb/xcbext.h>  // xcb_poll_for_reply: waiting for a reply with a deadline

// The extension ids are mutable C globals, which Swift 6 refuses to touch;
// these hand out their cached query replies instead (NULL-safe: `present` is 0
// when the server lacks the extension).
static inline const xcb_query_extension_reply_t *cxcb_res_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_res_id);
}
static inline const xcb_query_extension_reply_t *cxcb_screensaver_extension(xcb_connection_t *c) {
    return xcb_get_extension_data(c, &xcb_screensaver_id);
}
static inline void cxcb_prefetch_extensions(xcb_connection_t *c) {
    xcb_prefetch_extension_data(c, &xcb_res_id);
    xcb_prefetch_extension_data(c, &xcb_screensaver_id);
}
