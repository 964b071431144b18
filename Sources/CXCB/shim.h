#include <xcb/xcb.h>
#include <xcb/res.h>
#include <xcb/screensaver.h>
