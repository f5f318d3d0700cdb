/*
 * version.c: the library's version at run time (contactd.h: ctd_version), for programs
 * and bindings that cannot read a C macro. The string is configure's PACKAGE_VERSION.
 */
#include "config.h"

#include "core/contactd.h"

const char *ctd_version(void)
{
	return PACKAGE_VERSION;
}
