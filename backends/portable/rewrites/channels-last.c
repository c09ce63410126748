/* channels-last.c: chains of convolutions run channels-last
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An exported MobileNet runs 1x1 -> depthwise -> 1x1 convolutions on NCHW
 * tensors.  NCHW suits neither kernel on AVX-512: the 1x1 tiles put the
 * output channels along their vectors and transpose every result back
 * into planes, and the depthwise kernel copies each plane into a padded
 * scratch (split into phases at stride 2).  Channels-last, a 1x1
 * convolution reads its input and writes its output in place, and a
 * depthwise one loads 16 channels of a pixel as one vector.
 *
 * conv-fusion.c hands over the convolutions it fuses (ChainConv).  A
 * fused output becomes channels-last when every instruction that reads
 * it runs channels-last too: a fusable convolution taking it as input or
 * as its residual, nothing else (a method output, a pool, a cat keeps it
 * NCHW).  A depthwise convolution reads and writes the same layout, and a
 * residual is laid out as the output it is added to; outputs that break
 * either rule go back to NCHW until none does, and so does the input of
 * a 1x1 convolution that would leave the chain where the tiles lose to
 * the GEMM path (their NCHW stores transpose every sum).  The layout changes only
 * the tensors' dim order and strides, which every kernel honours, so the
 * method computes what it did; the convolutions between the layouts (a
 * chain's first and last) convert as they read or write.
 *
 * Only where the channels-last kernels run (AVX-512), and not with
 * EXECUTORCH_KERNELS_NO_CHANNELS_LAST set (to compare).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* secure_getenv */
#endif
#include "kernels-private.h"
#include "rewrites-private.h"

#include <stdlib.h>
#include <string.h>

static bool
enabled (void)
{
  const char *off = secure_getenv ("EXECUTORCH_KERNELS_NO_CHANNELS_LAST");

  return off == NULL || off[0] == '\0' || strcmp (off, "0") == 0;
}

int64_t
_executorch_chain_conv_producing (const ChainConv *convs, uint32_t n, const EtValue *value)
{
  for (uint32_t i = 0; i < n; i++)
    if (convs[i].out == value)
      return i;
  return -1;
}

/* Whether instruction @index is one a fusion of @convs made do nothing
 * (its reads of a value are no reads). */
static bool
fused_away (const ChainConv *convs, uint32_t n, uint32_t index)
{
  for (uint32_t i = 0; i < n; i++)
    for (int f = 0; f < 3; f++)
      if (convs[i].fused_away[f] == (int64_t) index)
        return true;
  return false;
}

int64_t
_executorch_chain_conv_at (const ChainConv *convs, uint32_t n, uint32_t index)
{
  for (uint32_t i = 0; i < n; i++)
    if (convs[i].conv == index)
      return i;
  return -1;
}

/* Whether every reader of convs[@p]'s output can read it channels-last. */
static bool
readers_take_channels_last (EtMethodGraph *graph, const ChainConv *convs, uint32_t n, uint32_t p)
{
  const EtValue *value = convs[p].out;
  const EtTensor *t = value->tag == ET_VALUE_TENSOR ? value->u.tensor : NULL;
  uint32_t n_instructions = et_method_graph_n_instructions (graph);

  if (t == NULL || t->ndim != 4 || t->scalar_type != ET_SCALAR_FLOAT || t->device_type != ET_DEVICE_CPU ||
      !_executorch_dim_order_is_identity (t) || et_method_graph_value_is_pinned (graph, value))
    return false;
  for (uint32_t i = 0; i < n_instructions; i++)
    {
      uint32_t n_args;
      EtValue **args = et_method_graph_args (graph, i, &n_args);
      int64_t q = _executorch_chain_conv_at (convs, n, i);

      for (uint32_t j = 0; j < n_args; j++)
        {
          bool reads = args[j] == value;
          if (!reads && (args[j]->tag == ET_VALUE_LIST_TENSOR || args[j]->tag == ET_VALUE_LIST_OPTIONAL_TENSOR))
            for (uint32_t k = 0; k < args[j]->u.list.length && args[j]->u.list.items != NULL; k++)
              reads = reads || args[j]->u.list.items[k] == value;
          if (!reads)
            continue;
          if (i == convs[p].conv && j >= 9)
            continue; /* the producer's own out (a lone convolution) */
          if (q >= 0 && j == 0 && convs[q].capable)
            continue; /* a channels-last convolution's input */
          if (q < 0 && fused_away (convs, n, i))
            continue; /* a residual (checked below) or an unwritten intermediate */
          return false;
        }
    }
  /* As a residual, by a convolution that can take it. */
  for (uint32_t q = 0; q < n; q++)
    if (convs[q].residual == value && !convs[q].capable)
      return false;
  return true;
}

void
_executorch_channels_last_choose (EtMethodGraph *graph, ChainConv *convs, uint32_t n)
{
  bool changed = true;

  for (uint32_t p = 0; p < n; p++)
    convs[p].in_channels_last = convs[p].out_channels_last = false;
  if (!enabled ())
    return;
  for (uint32_t p = 0; p < n; p++)
    convs[p].out_channels_last = convs[p].capable && readers_take_channels_last (graph, convs, n, p);

  /* Outputs that break a rule go back to NCHW, until none does. */
  while (changed)
    {
      changed = false;
      for (uint32_t q = 0; q < n; q++)
        {
          int64_t in = _executorch_chain_conv_producing (convs, n, convs[q].input);
          int64_t res = convs[q].residual != NULL ? _executorch_chain_conv_producing (convs, n, convs[q].residual) : -1;
          bool in_last = in >= 0 && convs[in].out_channels_last;
          bool res_last = res >= 0 && convs[res].out_channels_last;

          if (convs[q].depthwise && in_last != convs[q].out_channels_last)
            {
              if (in_last)
                convs[in].out_channels_last = false;
              convs[q].out_channels_last = false;
              changed = true;
            }
          /* Leaving the chain, the tiles transpose their sums into planes:
           * only where they beat the GEMM path anyway (small planes). */
          if (!convs[q].depthwise && in_last && !convs[q].out_channels_last && !convs[q].exit_pays)
            {
              convs[in].out_channels_last = false;
              changed = true;
            }
          if (convs[q].residual != NULL && res_last != convs[q].out_channels_last)
            {
              if (res_last)
                convs[res].out_channels_last = false;
              convs[q].out_channels_last = false;
              changed = true;
            }
        }
    }

  for (uint32_t q = 0; q < n; q++)
    {
      int64_t in = _executorch_chain_conv_producing (convs, n, convs[q].input);
      convs[q].in_channels_last = in >= 0 && convs[in].out_channels_last;
      if (convs[q].out_channels_last)
        {
          static const uint8_t order[4] = { 0, 2, 3, 1 };
          EtTensor *t = convs[q].out->u.tensor;

          memcpy (t->dim_order, order, sizeof order);
          et_strides_from_dim_order (t->ndim, t->sizes, t->dim_order, t->strides);
        }
    }
}
