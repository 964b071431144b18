#include "ctoml.h"
