// Device functions the Rust kernels call through `extern "C"`.
extern "C" __device__ float length_squared(float x, float y) {
    return x * x + y * y;
}

extern "C" __device__ float sum_of(const float* values, int n) {
    float total = 0.0f;
    for (int i = 0; i < n; ++i) total += values[i];
    return total;
}

extern "C" __device__ float declared_only(float x);
