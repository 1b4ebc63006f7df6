// 2D colour (RGB) image convolution, the thesis Sec. 9 sample program
// For each pixel (y, x) the filter is applied to the 3 bytes of each neighbouring pixel;
// neighbours outside the image count as 0 (the `offlimits` test). As in the thesis the
// outer loop runs over rows and the inner over byte columns (x += 3), so the direct
// mapping gives a coalescing factor of 3/4 * i_w; reversing the loops gives 1. The filter
// is read by all threads (shared-memory candidate), and neighbouring pixels overlap.
//
// warpcheck-advise: --function convolve --values in_image->width=640,in_image->height=480,filter->width=5,filter->height=5,filter_gain=1
// warpcheck-expect-advice: parallel: yes (`2-D nest y, x`; each iteration writes its own 3 output bytes; red/grn/blu/coeff are private: `loop fy (line 36): scalars written on lines 43, 44, 45 are read by the next iteration of loop fy`)
// warpcheck-expect-advice: inbound: `in_image->pixmap [0, 3*in_image->height*in_image->width - 1]` bytes (the offlimits test keeps every read inside the image; like the thesis's Table 9.1, [-3/2*f_h*i_w - 3/2*f_w, -4 + 3/2*f_h*i_w + 3/2*f_w + 3*i_w*i_h], the static analysis over-approximates it, exactly with floors: `in_image->pixmap [-3·in_image->width·(filter->height / 2) - 3·(filter->width / 2),`); `filter->pixmap [0, 4·filter->height·filter->width - 4] bytes`; the structs `filter, in_image, out_image`
// warpcheck-expect-advice: outbound: `out_image->pixmap [0, 3·in_image->height·in_image->width - 1] bytes (instantiated [0, 921599]) (nested through out_image)`
// warpcheck-expect-advice: coalescing: in_row[px + 0..2] and out_row[x + 0..2]: 3/4 * i_w requests per warp with y -> Grid.x (capped at 32): `y -> Grid.x, x -> Grid.y: min((3/4)·in_image->width, 32) = 32 (stride 3·in_image->width bytes)`; `x -> Grid.x, y -> Grid.y: 1 (stride 3 bytes)`; filter->pixmap: 1 (uniform) `filter->pixmap[4·filter->width·fy + 4·fx]: y -> Grid.x, x -> Grid.y: 1 (stride 0 bytes)`
// warpcheck-expect-advice: mapping: reverse the loops `mapping: x -> Grid.x, y -> Grid.y (reverse the loops` for a coalescing factor of 1
// warpcheck-expect-advice: shared: `filter->pixmap (lines 41): shared by all threads of a block; tile x: [0, filter->height·filter->width - 1]`; in_image->pixmap 2-D tile (thesis x: [-3/2*f_w, 3*BlockDim.x + 3/2*f_w - 1], y: [-f_h/2, BlockDim.y + f_h/2], exactly with floors): `in_image->pixmap (lines 43, 44, 45): adjacent threads overlap; tile x: [-3·(filter->width / 2), 3·blockDim.x + 3·filter->width - 3·(filter->width / 2) - 4], y: [-filter->height / 2, blockDim.y + filter->height - filter->height / 2 - 2]`

typedef struct {
    int width;
    int height;
    unsigned char* pixmap;
} image_t;

typedef struct {
    int width;
    int height;
    int* pixmap;
} filter_t;

void convolve(const image_t* in_image, image_t* out_image, const filter_t* filter, int filter_gain)
{
    for (int y = 0; y < in_image->height; y += 1) {
        for (int x = 0; x < in_image->width * 3; x += 3) {
            unsigned char* out_row = &out_image->pixmap[y * in_image->width * 3];
            int red = 0;
            int grn = 0;
            int blu = 0;
            for (int fy = 0; fy < filter->height; fy += 1) {
                int py = y + fy - (filter->height / 2);
                const unsigned char* in_row = &in_image->pixmap[py * in_image->width * 3];
                for (int fx = 0; fx < filter->width; fx += 1) {
                    int px = x + 3 * (fx - filter->width / 2);
                    int coeff = filter->pixmap[fx + fy * filter->width];
                    int offlimits = px < 0 || px >= in_image->width * 3 || py < 0 || py >= in_image->height;
                    red += offlimits ? 0 : in_row[px + 0] * coeff;
                    grn += offlimits ? 0 : in_row[px + 1] * coeff;
                    blu += offlimits ? 0 : in_row[px + 2] * coeff;
                }
            }
            out_row[x + 0] = (unsigned char)(red * filter_gain);
            out_row[x + 1] = (unsigned char)(grn * filter_gain);
            out_row[x + 2] = (unsigned char)(blu * filter_gain);
        }
    }
}
