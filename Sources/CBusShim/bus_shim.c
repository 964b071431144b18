#include "bus_shim.h"
