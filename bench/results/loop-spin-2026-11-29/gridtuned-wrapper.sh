#!/bin/sh
exec "${GRIDTUNED:?the gridtuned to run}" --loop-spin "${LOOP_SPIN:?microseconds}" "$@"
