/*
 * hold.h: a sphere pinched between two box pads, as MuJoCo computes it: its creep
 * and slip under gravity while the pads' motors press it (the `hold` question).
 *
 * The module's interface is public: struct ctd_hold, struct ctd_hold_answer,
 * ctd_hold_default, ctd_hold_supported and ctd_hold_solve are declared in contactd.h.
 * hold.c runs the scene: the mirror-symmetric step (pinch.h) or, with noslip, the
 * asymmetric one (noslip.h), until the rest of the run is known; docs/hold.md derives
 * both. No allocation.
 */
#ifndef CONTACTD_CORE_HOLD_H
#define CONTACTD_CORE_HOLD_H

#include "core/contactd.h"

#endif
