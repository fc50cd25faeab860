#include "ac_internal.h"

const char *ac_status_name(ac_status status)
{
    switch (status) {
    case AC_OK: return "ok";
    case AC_ERR_VALUE: return "invalid value";
    case AC_ERR_OVERFLOW: return "overflow";
    case AC_ERR_NOMEM: return "out of memory";
    }
    return "unknown status";
}

const char *ac_version(void)
{
    return AC_VERSION_STRING;
}
