/* The fixed-width types the public headers use. From <stddef.h> and <stdint.h> where the include
 * path has them (a hosted build, a kernel with its own on its -I path); else from the compiler's
 * predefined type macros, so that a -nostdinc kernel needs nothing but sfunwind's include/ to
 * include <sfu/...>. A kernel that defines these names itself, with other underlying types, puts
 * its header on the path as <stdint.h> (and <stddef.h>): the two then agree. */
#ifndef SFU_TYPES_H
#define SFU_TYPES_H

#if defined(__has_include)
#if __has_include(<stddef.h>) && __has_include(<stdint.h>)
#define SFU_TYPES_FROM_LIBC_HEADERS 1
#endif
#endif

#ifdef SFU_TYPES_FROM_LIBC_HEADERS
#include <stddef.h>
#include <stdint.h>
#else
typedef __INT8_TYPE__ int8_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __SIZE_TYPE__ size_t;
#endif

#endif /* SFU_TYPES_H */
