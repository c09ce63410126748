/* fuzz-execute.c: libFuzzer target executing fixed fixtures with fuzzed inputs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fuzzer's bytes pick a fixture (add, mlp, dynamic, cond, scalar_io)
 * and, for each input, a dtype, a rank, sizes (0 to 8 each) and the data;
 * the method is then executed.  Shapes and dtypes that do not match the
 * program must give a GError; anything else must run.
 */
#include "fuzz-common.h"

static const char *const fixtures[] = { "add", "mlp", "dynamic", "cond", "scalar_io" };
static const ExecutorchScalarType dtypes[] = {
  EXECUTORCH_SCALAR_TYPE_FLOAT, EXECUTORCH_SCALAR_TYPE_DOUBLE, EXECUTORCH_SCALAR_TYPE_LONG, EXECUTORCH_SCALAR_TYPE_INT,
  EXECUTORCH_SCALAR_TYPE_BYTE,  EXECUTORCH_SCALAR_TYPE_BOOL,   EXECUTORCH_SCALAR_TYPE_HALF, EXECUTORCH_SCALAR_TYPE_CHAR,
};

typedef struct
{
  const uint8_t *data;
  size_t size;
} Reader;

static uint8_t
next_byte (Reader *reader)
{
  uint8_t value = 0;

  if (reader->size > 0)
    {
      value = reader->data[0];
      reader->data++;
      reader->size--;
    }
  return value;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static ExecutorchProgram *programs[G_N_ELEMENTS (fixtures)];
  Reader reader = { data, size };
  guint which = next_byte (&reader) % G_N_ELEMENTS (fixtures);
  g_autoptr (ExecutorchMethod) method = NULL;
  GError *error = NULL;
  guint n_inputs;

  if (programs[which] == NULL)
    programs[which] = fuzz_fixture (fixtures[which]);
  method = executorch_program_load_method (programs[which], "forward", &error);
  if (method == NULL)
    g_error ("fixture %s does not load: %s", fixtures[which], error->message);
  executorch_method_set_max_instructions (method, 10000);

  n_inputs = executorch_method_get_n_inputs (method);
  for (guint i = 0; i < n_inputs; i++)
    {
      uint8_t kind = next_byte (&reader);
      gboolean ok;

      switch (kind % 8)
        {
          case 0: ok = executorch_method_set_input_int (method, i, (gint8) next_byte (&reader), &error); break;
          case 1: ok = executorch_method_set_input_double (method, i, (gint8) next_byte (&reader) / 4.0, &error); break;
          case 2: ok = executorch_method_set_input_bool (method, i, next_byte (&reader) & 1, &error); break;
          default:
            {
              ExecutorchScalarType dtype = dtypes[next_byte (&reader) % G_N_ELEMENTS (dtypes)];
              gsize ndim = next_byte (&reader) % 5, numel = 1, nbytes, element;
              gint64 sizes[4];
              g_autoptr (GBytes) bytes = NULL;
              g_autoptr (ExecutorchTensor) tensor = NULL;
              guint8 *buffer;

              for (gsize d = 0; d < ndim; d++)
                {
                  sizes[d] = next_byte (&reader) % 9;
                  numel *= (gsize) sizes[d];
                }
              element = dtype == EXECUTORCH_SCALAR_TYPE_DOUBLE || dtype == EXECUTORCH_SCALAR_TYPE_LONG ? 8
                        : dtype == EXECUTORCH_SCALAR_TYPE_FLOAT || dtype == EXECUTORCH_SCALAR_TYPE_INT ? 4
                        : dtype == EXECUTORCH_SCALAR_TYPE_HALF                                         ? 2
                                                                                                       : 1;
              /* kind 7: one byte short, which must be refused */
              nbytes = numel * element - (kind % 8 == 7 && numel > 0 ? 1 : 0);
              buffer = g_malloc0 (MAX (nbytes, 1));
              for (gsize b = 0; b < nbytes && reader.size > 0; b++)
                buffer[b] = next_byte (&reader);
              bytes = g_bytes_new_take (buffer, nbytes);
              tensor = executorch_tensor_new (dtype, sizes, ndim, bytes, &error);
              if (tensor == NULL)
                {
                  ok = FALSE;
                  break;
                }
              ok = executorch_method_set_input (method, i, tensor, &error);
              break;
            }
        }
      if (!ok)
        FUZZ_CHECK_ERROR (error);
    }

  if (!executorch_method_execute (method, NULL, &error))
    FUZZ_CHECK_ERROR (error);
  else
    for (guint i = 0; i < executorch_method_get_n_outputs (method); i++)
      if (executorch_method_get_output_kind (method, i) == EXECUTORCH_VALUE_KIND_TENSOR)
        {
          g_autoptr (ExecutorchTensor) out = executorch_method_get_output (method, i, &error);
          if (out == NULL)
            FUZZ_CHECK_ERROR (error);
        }
  return 0;
}
