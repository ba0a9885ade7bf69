# embed_text.cmake: writes OUTPUT, a C header holding the bytes of the text file INPUT as the
# NUL-terminated array `static const char SYMBOL[]`, so that a library carries the text (seeds.cl)
# instead of reading it from the source tree at run time. Bytes are written as hex, so no quote,
# backslash or trigraph in the text needs escaping. Run by the build:
#   cmake -DINPUT=seeds.cl -DOUTPUT=seeds_cl.h -DSYMBOL=gt_seeds_cl_source -P embed_text.cmake
foreach(var INPUT OUTPUT SYMBOL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_text.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1, " bytes "${hex}")
# Sixteen bytes a line keeps the header readable in a debugger or a diff.
string(REPEAT "0x[0-9a-f][0-9a-f], " 16 line)
string(REGEX REPLACE "(${line})" "\\1\n    " bytes "${bytes}")
string(REPLACE " \n" "\n" bytes "${bytes}")
get_filename_component(name "${INPUT}" NAME)

file(WRITE "${OUTPUT}" "/* Generated from ${name} by embed_text.cmake: do not edit. */
static const char ${SYMBOL}[] = {
    ${bytes}0x00};
")
