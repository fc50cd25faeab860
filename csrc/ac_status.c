#include <stdarg.h>
#include <stdio.h>

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

ac_status ac_fail(ac_error *err, ac_status status, size_t index, const char *arg,
                  double value, const char *detail, ...)
{
    if (err) {
        va_list ap;
        err->status = status;
        err->index = index;
        err->arg = arg;
        err->value = value;
        va_start(ap, detail);
        vsnprintf(err->detail, sizeof err->detail, detail, ap);
        va_end(ap);
    }
    return status;
}
