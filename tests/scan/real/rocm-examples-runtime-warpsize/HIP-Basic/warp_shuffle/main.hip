// MIT License
//
// Copyright (c) 2022-2023 Advanced Micro Devices, Inc. All rights reserved.
//
// Permission is hereby granted, free of charge, to any person obtaining a copy
// of this software and associated documentation files (the "Software"), to deal
// in the Software without restriction, including without limitation the rights
// to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
// copies of the Software, and to permit persons to whom the Software is
// furnished to do so, subject to the following conditions:
//
// The above copyright notice and this permission notice shall be included in all
// copies or substantial portions of the Software.
//
// THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
// IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
// FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
// AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
// LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
// OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
// SOFTWARE.

#include "example_utils.hpp"

#include <hip/hip_runtime.h>

#include <algorithm>
#include <iostream>
#include <numeric>
#include <vector>

/// \brief Transposes the matrix \p in and stores the result in \p out using warp shuffle operations.
__global__ void matrix_transpose_kernel(float* out, const float* in, const unsigned int width)
{
    // Compute the row and column indexes of the matrix element that each thread is going
    // to process. Since in this example there is only one block, the indexes are
    // precisely the thread's ID in each dimension.
    const unsigned int x = threadIdx.x;
    const unsigned int y = threadIdx.y;

    // If not out of bounds, transpose element.
    if(x < width && y < width)
    {
        // Read element from global memory. Each thread in the warp is reading the element that
        // the thread with global id x * width + y will transpose.
        const float val = in[y * width + x];

        // Transpose element reading it from the correspondent thread with a shuffle operation (__shfl).
        // __shfl does not require all threads to be active, so it can be inside the if block.
        // Note that, since the matrix in this example has less elements than the warp size value,
        // the ID within the warp of each thread matches its global ID.
        out[x * width + y] = __shfl(val, y * width + x);
    }
}
// [rocdoc excerpt: lines 71-93 of the original]
int main()
{
    // Number of rows and columns, total number of elements and size in bytes of the matrix
    // to be transposed.
    constexpr unsigned int width      = 4;
    constexpr unsigned int size       = width * width;
    constexpr unsigned int size_bytes = size * sizeof(float);

    // Get device's warp size.
    hipDeviceProp_t props;
    HIP_CHECK(hipGetDeviceProperties(&props, 0 /*device ID*/));

    // To guarantee the correct behaviour of the program, keep total number of matrix elements
    // below (or equal to) warp size.
    if(size > static_cast<unsigned int>(props.warpSize))
    {
        std::cerr << "Matrix has more elements than architecture's warp size value." << std::endl;
        exit(error_exit_code);
    }

    // Block (2D) and grid sizes. Note that in this example we have only 1 block (and 1 warp).
    const dim3 block_dim(width, width);
    const dim3 grid_dim(1);
