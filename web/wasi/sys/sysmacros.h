// <sys/sysmacros.h> for the lesson page's WebAssembly build only: WASI has no
// device numbers (models/input.cpp asks whether a path is /dev/null).
#pragma once
#define major(dev) ((unsigned)((dev) >> 8) & 0xfffu)
#define minor(dev) ((unsigned)(dev) & 0xffu)
