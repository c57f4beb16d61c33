/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IOTAP_BTHIST_H
#define IOTAP_BTHIST_H

#include <stdio.h>

#include "hist.h"

/*
 * bpftrace's hist() layout of a struct hist: rows "[lo, hi)" with K/M/G
 * suffixes and a bar of '@' 52 wide, from the lowest to the highest row
 * that has a count; 0 and 1 get rows of their own.
 */
int bthist_print(const struct hist *h, FILE *out);

#endif
