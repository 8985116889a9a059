/*
 * Licensed to the Apache Software Foundation (ASF) under one
 * or more contributor license agreements.  See the NOTICE file
 * distributed with this work for additional information
 * regarding copyright ownership.  The ASF licenses this file
 * to you under the Apache License, Version 2.0 (the
 * "License"); you may not use this file except in compliance
 * with the License.  You may obtain a copy of the License at
 *
 *   http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing,
 * software distributed under the License is distributed on an
 * "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
 * KIND, either express or implied.  See the License for the
 * specific language governing permissions and limitations
 * under the License.
 */

/*!
 * Copyright (c) 2018 by Contributors
 * \file nhwc_batch_norm_kernel.h
 * \brief CUDA NHWC Batch Normalization code
 * \author Shankara Rao Thejaswi Nanditale, Dick Carter, Maxim Milakov, Evgeni Krimer
*/
#ifndef MXNET_OPERATOR_NN_CUDNN_NHWC_BATCH_NORM_KERNEL_H_
#define MXNET_OPERATOR_NN_CUDNN_NHWC_BATCH_NORM_KERNEL_H_

#ifdef USE_ROCM
#include <hip/hip_runtime.h>
#include <hip/hip_runtime_api.h>
#include <hip/hip_fp16.h>
#endif
#include <stdint.h>
#include <algorithm>

#ifdef USE_ROCM
using bitmask_t = uint64_t;
#define BITMASK_OFFSET 2
#define ONE_BITMASK 1UL
#else
using bitmask_t = unsigned int;
#define BITMASK_OFFSET 2
#define ONE_BITMASK 1U
#endif

#define DEVICE_FUNCTION static inline __device__

// CTA margin used by cooperative launch. Can be overridden by env var NHWC_BATCHNORM_LAUNCH_MARGIN.
#define NHWC_BATCHNORM_LAUNCH_MARGIN_MIN     3
#define NHWC_BATCHNORM_LAUNCH_MARGIN_DEFAULT NHWC_BATCHNORM_LAUNCH_MARGIN_MIN

////////////////////////////////////////////////////////////////////////////////////////////////////

DEVICE_FUNCTION void syncwarp() {
#ifdef USE_ROCM
    __builtin_amdgcn_wave_barrier();
#else
    __syncwarp();
#endif
}

////////////////////////////////////////////////////////////////////////////////////////////////////

template <typename T>
DEVICE_FUNCTION T shfl_sync(T var, int src_lane) {
#ifdef USE_ROCM
    return __shfl(var, src_lane);
#else
    return __shfl_sync(0xFFFFFFFFU, var, src_lane);
#endif
}

////////////////////////////////////////////////////////////////////////////////////////////////////

DEVICE_FUNCTION bitmask_t ballot(int predicate) {
#ifdef USE_ROCM
    return __ballot(predicate);
#else
    return __ballot_sync(0xFFFFFFFFU, predicate);
#endif
}
// [rocdoc excerpt: lines 1052-1065 of the original]
__global__ __launch_bounds__(THREADS_PER_CTA, DESIRED_OCCUPANCY)
    void nhwc_batch_norm_fwd(NhwcBatchNormFwdParams params) {
    // The number of pixels loaded in a single LDG.
    const int PIXELS_PER_LDG = THREADS_PER_CTA / THREADS_PER_PIXEL;
    // The number of pixels computed per CTA stored in registers.
    const int PIXELS_PER_CTA_IN_REGISTERS = PIXELS_PER_THREAD_IN_REGISTERS * PIXELS_PER_LDG;
    // The number of pixels computed per CTA stored in SMEM.
    const int PIXELS_PER_CTA_IN_SMEM = PIXELS_PER_THREAD_IN_SMEM*PIXELS_PER_LDG;
    // The number of C elements per CTA.
    const int C_ELEMENTS_PER_CTA = THREADS_PER_PIXEL*ELEMENTS_PER_LDG;

    // Shared memory to do CTA-wide parallel sums.
    __shared__ float smem[THREADS_PER_PIXEL*(THREADS_PER_CTA/warpSize)*ELEMENTS_PER_LDG];

// [rocdoc excerpt: lines 1779-1792 of the original]
__global__ __launch_bounds__(THREADS_PER_CTA, DESIRED_OCCUPANCY)
    void nhwc_batch_norm_bwd(NhwcBatchNormBwdParams params) {
    // The number of pixels loaded in a single LDG.
    const int PIXELS_PER_LDG = THREADS_PER_CTA / THREADS_PER_PIXEL;
    // The number of pixels computed per CTA stored in registers.
    const int PIXELS_PER_CTA_IN_REGISTERS = PIXELS_PER_THREAD_IN_REGISTERS * PIXELS_PER_LDG;
    // The number of pixels computed per CTA stored in SMEM.
    const int PIXELS_PER_CTA_IN_SMEM = PIXELS_PER_THREAD_IN_SMEM*PIXELS_PER_LDG;
    // The number of C elements per CTA.
    const int C_ELEMENTS_PER_CTA = THREADS_PER_PIXEL*ELEMENTS_PER_LDG;

    // Shared memory to do CTA-wide parallel sums.
    __shared__ float smem[THREADS_PER_PIXEL*(THREADS_PER_CTA/warpSize)*ELEMENTS_PER_LDG];

// [rocdoc excerpt: lines 2178-2179 of the original]
    // Shared memory to do CTA-wide parallel sums.
    __shared__ float smem[THREADS_PER_PIXEL*(THREADS_PER_CTA/warpSize)*ELEMENTS_PER_LDG];
// [rocdoc excerpt: lines 2590-2591 of the original]
    // Shared memory to do CTA-wide parallel sums.
    __shared__ float smem[THREADS_PER_PIXEL*(THREADS_PER_CTA/warpSize)*ELEMENTS_PER_LDG];
// [rocdoc excerpt: lines 3021-3021 of the original]
#endif  // MXNET_OPERATOR_NN_CUDNN_NHWC_BATCH_NORM_KERNEL_H_
