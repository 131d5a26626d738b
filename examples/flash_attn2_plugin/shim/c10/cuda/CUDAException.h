/*
 * c10/cuda/CUDAException.h - the one PyTorch header FlashAttention-2's forward launch code
 * (csrc/flash_attn/src/flash_fwd_launch_template.h) includes, for ulpgate's flash_attn2 plugin
 * built without PyTorch.  FA2 uses two macros from it:
 *   C10_CUDA_CHECK(expr)           a CUDA runtime call that must succeed
 *   C10_CUDA_KERNEL_LAUNCH_CHECK() the kernel launch just made was accepted
 * PyTorch throws c10::Error; this shim throws fa2_shim::cuda_error (a std::runtime_error carrying
 * the cudaError_t), which the plugin's launcher catches and turns into ug_call's err (an exception
 * never crosses the plugin's C entry points).  The other PyTorch headers (ATen's Philox state for
 * dropout) are not needed: the plugin is built with FLASHATTENTION_DISABLE_DROPOUT, FA2's own
 * build switch, and grades the dropout-free forward.
 */
#pragma once
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

namespace fa2_shim {
struct cuda_error : std::runtime_error {
    cudaError_t code;
    cuda_error(cudaError_t c, const char *what, const char *file, int line)
        : std::runtime_error(std::string(what) + ": " + cudaGetErrorString(c) + " (" + file + ":" +
                             std::to_string(line) + ")"),
          code(c)
    {
    }
};
} // namespace fa2_shim

#define C10_CUDA_CHECK(EXPR)                                                                   \
    do {                                                                                       \
        cudaError_t fa2_shim_err_ = (EXPR);                                                    \
        if (fa2_shim_err_ != cudaSuccess)                                                      \
            throw ::fa2_shim::cuda_error(fa2_shim_err_, #EXPR, __FILE__, __LINE__);            \
    } while (0)

#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
