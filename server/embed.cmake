# cmake -DINPUT=file.json -DOUTPUT=demo_scene.c -DSYMBOL=name -P embed.cmake
# Writes a C source holding the file's bytes: const char SYMBOL[]; const size_t SYMBOL_size.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUTPUT} "/* Generated from ${INPUT} by embed.cmake. Do not edit. */\n#include <stddef.h>\nextern const char ${SYMBOL}[];\nextern const size_t ${SYMBOL}_size;\nconst char ${SYMBOL}[] = {\n${bytes}0x00};\nconst size_t ${SYMBOL}_size = ${size};\n")
