/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launcher relay's MACs (core/dist_relay_mac.c, OpenSSL's libcrypto) as
 * a module (base/module.h): only the launcher form's tasks load libcrypto. */
#include "base/module.h"
#include "dist_relay.h"

MODULE_EXPORT const struct relay_mac_module dist_shim_module_crypto = {MODULE_ABI, dist_relay_mac,
                                                                       dist_relay_mac_equal};
