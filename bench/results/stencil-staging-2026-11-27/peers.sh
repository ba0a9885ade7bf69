#!/bin/sh
# The peer bench on stencil5, before and after, alternated three times (as ../reduce-chunks):
#   ./peers.sh BEFORE_BUILD AFTER_BUILD > peers.txt
exec "$(dirname "$0")/../reduce-chunks-2026-11-27/run.sh" "$1" "$2" stencil5
