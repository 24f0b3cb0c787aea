# cmake -DOUT=<file> -DNAME=<name> -DDIR=<shaders/prox> -DFILES="a.glsl|b.glsl" -P prox_concat_glsl.cmake
# Writes one self-contained GLSL header: FILES in order (each after the files it
# includes), with their #include "x.glsl" lines of prox's own files dropped.
string(REPLACE "|" ";" FILES "${FILES}")
set(text "// ${NAME} — prox's GLSL library in one file, generated from shaders/prox/*.glsl\n")
string(APPEND text "// (do not edit; see docs/gpu.md). Needs GL_ARB_gpu_shader_fp64 (shaderFloat64).\n")
foreach(f IN LISTS FILES)
  file(READ ${DIR}/${f} body)
  string(REGEX REPLACE "#include \"[a-z_]+\\.glsl\"\n" "" body "${body}")
  string(APPEND text "\n// ---- ${f} ----\n${body}")
endforeach()
file(WRITE ${OUT}.tmp "${text}")
file(RENAME ${OUT}.tmp ${OUT})
