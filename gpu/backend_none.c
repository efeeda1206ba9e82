/* Built without CUDA: there is no CUDA stencil backend, and
 * stencil.backend=cuda is refused with that reason. */
#include "backend.h"

#include <stddef.h>

const struct stencil_backend_ops *const stencil_backend_cuda = NULL;
