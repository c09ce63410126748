/* executorch-run: load a .pte program, run a method, save and check its outputs
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch.h>
#include <executorch-threadpool.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "npy.h"
#include "program-json.h"
#include "support-private.h"

#define PROGRAM_NAME "executorch-run"

enum
{
  EXIT_MISMATCH = 1,
  EXIT_USAGE = CLI_EXIT_USAGE,
  EXIT_TIMEOUT = 124
};

typedef enum
{
  FILL_ZEROS,
  FILL_ONES,
  FILL_RANDOM
} Fill;

static char *opt_method = NULL;
static char **opt_inputs = NULL;
static char **opt_outputs = NULL;
static char **opt_data = NULL;
static char **opt_compare = NULL;
static gint opt_iterations = 1;
static gint opt_threads = 0;
static gint opt_warmup = 0;
static gboolean opt_steps = FALSE;
static char *opt_timing = NULL;
static char *opt_fill = NULL;
static gint64 opt_seed = 0;
static gdouble opt_rtol = 1e-5;
static gdouble opt_atol = 1e-8;
static gboolean opt_quiet = FALSE;
static gboolean opt_progress = FALSE;
static gboolean opt_no_progress = FALSE;
static gboolean opt_info = FALSE;
static gboolean opt_json = FALSE;
static gboolean opt_list_operators = FALSE;
static gboolean opt_list_backends = FALSE;
static gboolean opt_version = FALSE;
static char *opt_etdump = NULL;
static gboolean opt_profile = FALSE;
static gint opt_profile_top = 20;
static char *opt_verify = NULL;
static char *opt_etdump_outputs = NULL;
static char *opt_max_memory = NULL;
static gboolean opt_allow_native_code = FALSE;
static gint64 opt_max_instructions = 0;
static gdouble opt_timeout = 0.0;
static char **opt_rest = NULL;

/* --timeout: a timer thread cancels the executions. */
static GCancellable *timeout_cancellable = NULL;
static gint timed_out = 0;

static const GOptionEntry entries[] = {
  { "method", 'm', 0, G_OPTION_ARG_STRING, &opt_method, "Method to run (default: forward)", "NAME" },
  { "input", 'i', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_inputs, "Input .npy file, once per input in order", "IN.npy" },
  { "output", 'o', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_outputs, "Where to save an output, once per output in order",
    "OUT.npy" },
  { "iterations", 'n', 0, G_OPTION_ARG_INT, &opt_iterations, "Number of executions (default: 1)", "N" },
  { "threads", 't', 0, G_OPTION_ARG_INT, &opt_threads,
    "CPU threads for kernels (default: EXECUTORCH_NUM_THREADS or the number of CPUs)", "N" },
  { "steps", 0, 0, G_OPTION_ARG_NONE, &opt_steps,
    "Input, output and comparison files come step after step; run the steps in order on one loaded method", NULL },
  { "warmup", 0, 0, G_OPTION_ARG_INT, &opt_warmup, "Executions before the timed ones (default: 0)", "N" },
  { "timing", 0, 0, G_OPTION_ARG_FILENAME, &opt_timing,
    "Write load and execution times in milliseconds to FILE as JSON", "FILE" },
  { "data", 'd', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_data, "External data file (.ptd) of the program", "FILE.ptd" },
  { "fill", 0, 0, G_OPTION_ARG_STRING, &opt_fill, "Inputs not given: zeros, ones or random (default: zeros)",
    "zeros|ones|random" },
  { "seed", 0, 0, G_OPTION_ARG_INT64, &opt_seed, "Seed for --fill random (default: 0)", "S" },
  { "compare", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_compare, "Expected output .npy, once per output in order",
    "EXPECTED.npy" },
  { "rtol", 0, 0, G_OPTION_ARG_DOUBLE, &opt_rtol, "Relative tolerance of --compare (default: 1e-5)", "R" },
  { "atol", 0, 0, G_OPTION_ARG_DOUBLE, &opt_atol, "Absolute tolerance of --compare (default: 1e-8)", "A" },
  { "quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "Print nothing but errors (and no progress line)", NULL },
  { "progress", 0, 0, G_OPTION_ARG_NONE, &opt_progress,
    "Show a progress line on standard error even when it is not a terminal", NULL },
  { "no-progress", 0, 0, G_OPTION_ARG_NONE, &opt_no_progress, "Never show the progress line", NULL },
  { "info", 0, 0, G_OPTION_ARG_NONE, &opt_info, "Describe the program's methods instead of running", NULL },
  { "json", 0, 0, G_OPTION_ARG_NONE, &opt_json, "With --info: print the description as JSON", NULL },
  { "list-operators", 0, 0, G_OPTION_ARG_NONE, &opt_list_operators, "List the operators kernels are installed for",
    NULL },
  { "list-backends", 0, 0, G_OPTION_ARG_NONE, &opt_list_backends, "List the installed delegate backends", NULL },
  { "version", 0, 0, G_OPTION_ARG_NONE, &opt_version, "Print the version and exit", NULL },
  { "etdump", 0, 0, G_OPTION_ARG_FILENAME, &opt_etdump, "Profile the executions and write them as ETDump", "OUT.etdp" },
  { "etdump-outputs", 0, 0, G_OPTION_ARG_FILENAME, &opt_etdump_outputs,
    "With --etdump: record every kernel's output, their data going to this debug buffer", "OUT.bin" },
  { "profile", 0, 0, G_OPTION_ARG_NONE, &opt_profile, "Profile the executions and print time per operator", NULL },
  { "profile-top", 0, 0, G_OPTION_ARG_INT, &opt_profile_top, "Operators --profile lists (default: 20)", "N" },
  { "verify", 0, 0, G_OPTION_ARG_FILENAME, &opt_verify,
    "Run the test cases of a bundled program and check their outputs", "MODEL.bpte" },
  { "max-memory", 0, 0, G_OPTION_ARG_STRING, &opt_max_memory,
    "Most planned memory a method may use, in bytes (K, M or G suffix; default 4G)", "BYTES" },
  { "max-instructions", 0, 0, G_OPTION_ARG_INT64, &opt_max_instructions,
    "Most instructions one execution may run (default: 10000000)", "N" },
  { "allow-native-code", 0, 0, G_OPTION_ARG_NONE, &opt_allow_native_code,
    "Let delegates run native code the program carries (a CUDA program's compiled model); only for files you trust",
    NULL },
  { "timeout", 0, 0, G_OPTION_ARG_DOUBLE, &opt_timeout, "Stop the executions after SECONDS (exit status 124)",
    "SECONDS" },
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_rest, NULL, "MODEL.pte" },
  { NULL }
};

static int
fail_with (GError *error)
{
  fprintf (stderr, "%s: %s\n", PROGRAM_NAME, error->message);
  g_error_free (error);
  return EXIT_FAILURE;
}

/* Bytes with an optional K, M or G suffix (powers of 1024); FALSE when
 * @text is not such a number, is 0 or does not fit 64 bits. */
static gboolean
parse_size (const char *text, guint64 *bytes)
{
  guint64 value, scale = 1;
  char *end = NULL;

  if (text == NULL || !g_ascii_isdigit (text[0]))
    return FALSE;
  errno = 0;
  value = g_ascii_strtoull (text, &end, 10);
  if (errno != 0)
    return FALSE;
  switch (g_ascii_toupper (*end))
    {
      case 'K':
        scale = G_GUINT64_CONSTANT (1) << 10;
        end++;
        break;
      case 'M':
        scale = G_GUINT64_CONSTANT (1) << 20;
        end++;
        break;
      case 'G':
        scale = G_GUINT64_CONSTANT (1) << 30;
        end++;
        break;
      default: break;
    }
  if (*end == 'i' && scale > 1)
    end++; /* KiB, MiB, GiB */
  if (g_ascii_toupper (*end) == 'B')
    end++;
  if (*end != '\0' || value == 0 || value > G_MAXUINT64 / scale)
    return FALSE;
  *bytes = value * scale;
  return TRUE;
}

static gpointer
timeout_thread (gpointer data)
{
  gint64 deadline = GPOINTER_TO_SIZE (data) + g_get_monotonic_time ();
  gint64 now;

  while ((now = g_get_monotonic_time ()) < deadline)
    g_usleep (MIN (deadline - now, G_USEC_PER_SEC / 10));
  g_atomic_int_set (&timed_out, 1);
  g_cancellable_cancel (timeout_cancellable);
  return NULL;
}

static void
start_timeout (void)
{
  if (opt_timeout <= 0.0 || timeout_cancellable != NULL)
    return;
  timeout_cancellable = g_cancellable_new ();
  g_thread_unref (g_thread_new ("timeout", timeout_thread, GSIZE_TO_POINTER ((gsize) (opt_timeout * G_USEC_PER_SEC))));
}

/* An execution failure: the timeout's, or @error's. */
static int
execute_failed (GError *error)
{
  if (g_atomic_int_get (&timed_out) && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      fprintf (stderr, "%s: timed out after %g seconds (--timeout)\n", PROGRAM_NAME, opt_timeout);
      g_error_free (error);
      return EXIT_TIMEOUT;
    }
  return fail_with (error);
}

/* --- element conversions --- */

static gboolean
is_float_type (ExecutorchScalarType type)
{
  return type == EXECUTORCH_SCALAR_TYPE_FLOAT || type == EXECUTORCH_SCALAR_TYPE_DOUBLE ||
         type == EXECUTORCH_SCALAR_TYPE_HALF || type == EXECUTORCH_SCALAR_TYPE_BFLOAT16;
}

/* Reads element @i as a double (integers up to 2^53 exactly). */
static double
element_as_double (ExecutorchScalarType type, const guint8 *data, gsize i)
{
  switch (type)
    {
      case EXECUTORCH_SCALAR_TYPE_FLOAT:
        {
          float v;
          memcpy (&v, data + i * 4, 4);
          return v;
        }
      case EXECUTORCH_SCALAR_TYPE_DOUBLE:
        {
          double v;
          memcpy (&v, data + i * 8, 8);
          return v;
        }
      case EXECUTORCH_SCALAR_TYPE_HALF:
        {
          guint16 v;
          memcpy (&v, data + i * 2, 2);
          return et_half_to_float (v);
        }
      case EXECUTORCH_SCALAR_TYPE_BFLOAT16:
        {
          guint16 v;
          memcpy (&v, data + i * 2, 2);
          return et_bfloat16_to_float (v);
        }
      case EXECUTORCH_SCALAR_TYPE_BYTE: return data[i];
      case EXECUTORCH_SCALAR_TYPE_CHAR: return (gint8) data[i];
      case EXECUTORCH_SCALAR_TYPE_BOOL: return data[i] != 0;
      case EXECUTORCH_SCALAR_TYPE_SHORT:
        {
          gint16 v;
          memcpy (&v, data + i * 2, 2);
          return v;
        }
      case EXECUTORCH_SCALAR_TYPE_UINT16:
        {
          guint16 v;
          memcpy (&v, data + i * 2, 2);
          return v;
        }
      case EXECUTORCH_SCALAR_TYPE_INT:
        {
          gint32 v;
          memcpy (&v, data + i * 4, 4);
          return v;
        }
      case EXECUTORCH_SCALAR_TYPE_UINT32:
        {
          guint32 v;
          memcpy (&v, data + i * 4, 4);
          return v;
        }
      case EXECUTORCH_SCALAR_TYPE_LONG:
        {
          gint64 v;
          memcpy (&v, data + i * 8, 8);
          return (double) v;
        }
      case EXECUTORCH_SCALAR_TYPE_UINT64:
        {
          guint64 v;
          memcpy (&v, data + i * 8, 8);
          return (double) v;
        }
      default: return 0.0;
    }
}

static void
set_element (ExecutorchScalarType type, guint8 *data, gsize i, double value)
{
  switch (type)
    {
      case EXECUTORCH_SCALAR_TYPE_FLOAT:
        {
          float v = (float) value;
          memcpy (data + i * 4, &v, 4);
          break;
        }
      case EXECUTORCH_SCALAR_TYPE_DOUBLE: memcpy (data + i * 8, &value, 8); break;
      case EXECUTORCH_SCALAR_TYPE_HALF:
        {
          guint16 v = et_float_to_half ((float) value);
          memcpy (data + i * 2, &v, 2);
          break;
        }
      case EXECUTORCH_SCALAR_TYPE_BFLOAT16:
        {
          guint16 v = et_float_to_bfloat16 ((float) value);
          memcpy (data + i * 2, &v, 2);
          break;
        }
      case EXECUTORCH_SCALAR_TYPE_BOOL: data[i] = value != 0.0; break;
      case EXECUTORCH_SCALAR_TYPE_BYTE:
      case EXECUTORCH_SCALAR_TYPE_QUINT8: data[i] = (guint8) value; break;
      case EXECUTORCH_SCALAR_TYPE_CHAR:
      case EXECUTORCH_SCALAR_TYPE_QINT8: data[i] = (guint8) (gint8) value; break;
      case EXECUTORCH_SCALAR_TYPE_SHORT:
        {
          gint16 v = (gint16) value;
          memcpy (data + i * 2, &v, 2);
          break;
        }
      case EXECUTORCH_SCALAR_TYPE_UINT16:
        {
          guint16 v = (guint16) value;
          memcpy (data + i * 2, &v, 2);
          break;
        }
      case EXECUTORCH_SCALAR_TYPE_INT:
      case EXECUTORCH_SCALAR_TYPE_QINT32:
        {
          gint32 v = (gint32) value;
          memcpy (data + i * 4, &v, 4);
          break;
        }
      case EXECUTORCH_SCALAR_TYPE_UINT32:
        {
          guint32 v = (guint32) value;
          memcpy (data + i * 4, &v, 4);
          break;
        }
      case EXECUTORCH_SCALAR_TYPE_LONG:
        {
          gint64 v = (gint64) value;
          memcpy (data + i * 8, &v, 8);
          break;
        }
      case EXECUTORCH_SCALAR_TYPE_UINT64:
        {
          guint64 v = (guint64) value;
          memcpy (data + i * 8, &v, 8);
          break;
        }
      default: break; /* left as zero bytes */
    }
}

/* Copies elements between two layouts of the same logical tensor. */
static GBytes *
relayout (GBytes *src, gsize element_size, gsize n_dims, const gint64 *sizes, const guint8 *from, const guint8 *to)
{
  gint64 src_strides[NPY_MAX_DIMS], dst_strides[NPY_MAX_DIMS], index[NPY_MAX_DIMS] = { 0 };
  gint64 numel = 1;
  gsize size;
  const guint8 *in = g_bytes_get_data (src, &size);
  guint8 *out;

  if (n_dims < 2 || memcmp (from, to, n_dims) == 0)
    return g_bytes_ref (src);
  for (gsize i = 0; i < n_dims; i++)
    numel *= sizes[i];
  for (int pass = 0; pass < 2; pass++)
    {
      const guint8 *order = pass == 0 ? from : to;
      gint64 *strides = pass == 0 ? src_strides : dst_strides;
      gint64 stride = 1;

      for (int k = (int) n_dims - 1; k >= 0; k--)
        {
          strides[order[k]] = stride;
          stride *= MAX (sizes[order[k]], 1);
        }
    }
  out = g_malloc0 (MAX (size, 1));
  for (gint64 n = 0; n < numel; n++)
    {
      gint64 s = 0, d = 0;

      for (gsize i = 0; i < n_dims; i++)
        {
          s += index[i] * src_strides[i];
          d += index[i] * dst_strides[i];
        }
      memcpy (out + d * element_size, in + s * element_size, element_size);
      for (int i = (int) n_dims - 1; i >= 0; i--)
        {
          if (++index[i] < sizes[i])
            break;
          index[i] = 0;
        }
    }
  return g_bytes_new_take (out, size);
}

static const guint8 identity_order[NPY_MAX_DIMS] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

/* --- inputs --- */

static gboolean
scalar_from_npy (const NpyArray *array, const char *path, guint index, double *value, GError **error)
{
  if (array->numel != 1 || array->n_dims > 1)
    {
      g_set_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT,
                   "%s: input %u is a scalar, but the file holds an array of %" G_GINT64_FORMAT " elements", path,
                   index, array->numel);
      return FALSE;
    }
  *value = element_as_double (array->scalar_type, g_bytes_get_data (array->data, NULL), 0);
  return TRUE;
}

static gboolean
bind_input_array (ExecutorchMethod *method, ExecutorchValueInfo *info, guint index, const char *path, NpyArray *loaded,
                  GError **error)
{
  NpyArray array = *loaded;
  g_autoptr (ExecutorchTensor) tensor = NULL;
  g_autofree char *shown = g_filename_display_name (path);
  gboolean ok = FALSE;
  double value;

  switch (executorch_value_info_get_kind (info))
    {
      case EXECUTORCH_VALUE_KIND_TENSOR:
        tensor = executorch_tensor_new (array.scalar_type, array.sizes, array.n_dims, array.data, error);
        ok = tensor != NULL && executorch_method_set_input (method, index, tensor, error);
        break;
      case EXECUTORCH_VALUE_KIND_INT:
        if (is_float_type (array.scalar_type))
          {
            g_set_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_ARGUMENT,
                         "%s: input %u is an Int, but the file holds floating-point data", shown, index);
            break;
          }
        if (array.scalar_type == EXECUTORCH_SCALAR_TYPE_LONG && array.numel == 1 && array.n_dims <= 1)
          {
            gint64 v;
            memcpy (&v, g_bytes_get_data (array.data, NULL), sizeof v);
            ok = executorch_method_set_input_int (method, index, v, error);
          }
        else if (scalar_from_npy (&array, shown, index, &value, error))
          ok = executorch_method_set_input_int (method, index, (gint64) value, error);
        break;
      case EXECUTORCH_VALUE_KIND_DOUBLE:
        if (scalar_from_npy (&array, shown, index, &value, error))
          ok = executorch_method_set_input_double (method, index, value, error);
        break;
      case EXECUTORCH_VALUE_KIND_BOOL:
        if (scalar_from_npy (&array, shown, index, &value, error))
          ok = executorch_method_set_input_bool (method, index, value != 0.0, error);
        break;
      case EXECUTORCH_VALUE_KIND_NONE: ok = executorch_method_set_input (method, index, NULL, error); break;
      default:
        g_set_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED,
                     "input %u is of a kind executorch-run cannot set", index);
        break;
    }
  return ok;
}

static gboolean
bind_generated_input (ExecutorchMethod *method, ExecutorchValueInfo *info, guint index, Fill fill, GRand *rand,
                      GError **error)
{
  switch (executorch_value_info_get_kind (info))
    {
      case EXECUTORCH_VALUE_KIND_TENSOR:
        {
          ExecutorchScalarType type = executorch_value_info_get_scalar_type (info);
          gsize n_dims, element_size = executorch_scalar_type_get_element_size (type);
          const gint64 *sizes = executorch_value_info_get_sizes (info, &n_dims);
          const guint8 *order = executorch_value_info_get_dim_order (info, NULL);
          gint64 numel = 1;
          guint8 *data;
          g_autoptr (GBytes) bytes = NULL;
          g_autoptr (ExecutorchTensor) tensor = NULL;

          for (gsize i = 0; i < n_dims; i++)
            numel *= sizes[i];
          data = g_malloc0 (MAX ((gsize) numel * element_size, 1));
          for (gint64 i = 0; fill != FILL_ZEROS && i < numel; i++)
            {
              double v;
              if (fill == FILL_ONES)
                v = 1.0;
              else if (is_float_type (type))
                v = g_rand_double_range (rand, -1.0, 1.0);
              else
                v = g_rand_int_range (rand, 0, 2);
              set_element (type, data, (gsize) i, v);
            }
          bytes = g_bytes_new_take (data, (gsize) numel * element_size);
          /* Generated in the input's own layout: no re-layout needed. */
          tensor = executorch_tensor_new_with_dim_order (type, sizes, n_dims, order, n_dims, bytes, error);
          return tensor != NULL && executorch_method_set_input (method, index, tensor, error);
        }
      case EXECUTORCH_VALUE_KIND_INT:
        return executorch_method_set_input_int (method, index, executorch_value_info_get_int_value (info), error);
      case EXECUTORCH_VALUE_KIND_DOUBLE:
        return executorch_method_set_input_double (method, index, executorch_value_info_get_double_value (info), error);
      case EXECUTORCH_VALUE_KIND_BOOL:
        return executorch_method_set_input_bool (method, index, executorch_value_info_get_bool_value (info), error);
      case EXECUTORCH_VALUE_KIND_NONE: return executorch_method_set_input (method, index, NULL, error);
      default:
        {
          g_autofree char *text = executorch_value_info_to_string (info);
          g_set_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED,
                       "input %u (%s) cannot be generated; executorch-run cannot set such inputs", index, text);
          return FALSE;
        }
    }
}

/* --- outputs --- */

/* An output in C order, whatever its kind. */
typedef struct
{
  ExecutorchScalarType scalar_type;
  gsize n_dims;
  gint64 sizes[NPY_MAX_DIMS];
  gint64 numel;
  GBytes *data;
} Output;

static void
output_clear (Output *out)
{
  g_clear_pointer (&out->data, g_bytes_unref);
}

static gboolean
get_output (ExecutorchMethod *method, guint index, Output *out, GError **error)
{
  memset (out, 0, sizeof *out);
  switch (executorch_method_get_output_kind (method, index))
    {
      case EXECUTORCH_VALUE_KIND_TENSOR:
        {
          g_autoptr (ExecutorchTensor) view = executorch_method_get_output (method, index, error);
          g_autoptr (GBytes) bytes = NULL;
          const gint64 *sizes;
          const guint8 *order;

          if (view == NULL || (bytes = executorch_tensor_get_bytes (view, error)) == NULL)
            return FALSE;
          out->scalar_type = executorch_tensor_get_scalar_type (view);
          sizes = executorch_tensor_get_sizes (view, &out->n_dims);
          order = executorch_tensor_get_dim_order (view, NULL);
          for (gsize i = 0; i < out->n_dims; i++)
            out->sizes[i] = sizes[i];
          out->numel = executorch_tensor_get_numel (view);
          out->data = relayout (bytes, executorch_scalar_type_get_element_size (out->scalar_type), out->n_dims,
                                out->sizes, order, identity_order);
          return TRUE;
        }
      case EXECUTORCH_VALUE_KIND_INT:
        {
          gint64 v;
          if (!executorch_method_get_output_int (method, index, &v, error))
            return FALSE;
          out->scalar_type = EXECUTORCH_SCALAR_TYPE_LONG;
          out->data = g_bytes_new (&v, sizeof v);
          break;
        }
      case EXECUTORCH_VALUE_KIND_DOUBLE:
        {
          double v;
          if (!executorch_method_get_output_double (method, index, &v, error))
            return FALSE;
          out->scalar_type = EXECUTORCH_SCALAR_TYPE_DOUBLE;
          out->data = g_bytes_new (&v, sizeof v);
          break;
        }
      case EXECUTORCH_VALUE_KIND_BOOL:
        {
          gboolean v;
          guint8 b;
          if (!executorch_method_get_output_bool (method, index, &v, error))
            return FALSE;
          b = v ? 1 : 0;
          out->scalar_type = EXECUTORCH_SCALAR_TYPE_BOOL;
          out->data = g_bytes_new (&b, 1);
          break;
        }
      default:
        {
          GEnumClass *klass = g_type_class_ref (EXECUTORCH_TYPE_VALUE_KIND);
          GEnumValue *value = g_enum_get_value (klass, executorch_method_get_output_kind (method, index));
          g_set_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_SUPPORTED,
                       "output %u is a %s, which cannot be saved as .npy", index,
                       value != NULL ? value->value_nick : "value");
          g_type_class_unref (klass);
          return FALSE;
        }
    }
  out->n_dims = 0;
  out->numel = 1;
  return TRUE;
}

static char *
format_shape (const gint64 *sizes, gsize n_dims)
{
  GString *s = g_string_new ("(");

  for (gsize i = 0; i < n_dims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", sizes[i]);
  if (n_dims == 1)
    g_string_append_c (s, ',');
  g_string_append_c (s, ')');
  return g_string_free (s, FALSE);
}

/* executorch_tensor_compare decides, as it does for bundled programs. */
static gboolean
compare_output (const Output *got, guint index, const char *path, GError **error)
{
  g_autofree char *shown = g_filename_display_name (path);
  g_autoptr (ExecutorchTensor) got_tensor = NULL;
  g_autoptr (ExecutorchTensor) want_tensor = NULL;
  NpyArray want;
  gboolean ok;

  if (!npy_read_file (path, &want, error))
    return FALSE;
  got_tensor = executorch_tensor_new (got->scalar_type, got->sizes, got->n_dims, got->data, error);
  want_tensor =
      got_tensor != NULL ? executorch_tensor_new (want.scalar_type, want.sizes, want.n_dims, want.data, error) : NULL;
  ok = want_tensor != NULL && executorch_tensor_compare (got_tensor, want_tensor, opt_rtol, opt_atol, error);
  if (!ok)
    g_prefix_error (error, "output %u does not match %s: ", index, shown);
  npy_array_clear (&want);
  return ok;
}

static void
print_output (const Output *out, guint index)
{
  const guint8 *data = g_bytes_get_data (out->data, NULL);
  g_autofree char *shape = format_shape (out->sizes, out->n_dims);
  const gint64 shown = MIN (out->numel, 8);

  printf ("output %u: %s %s [", index,
          executorch_scalar_type_to_string (out->scalar_type) != NULL
              ? executorch_scalar_type_to_string (out->scalar_type)
              : "?",
          shape);
  for (gint64 i = 0; i < shown; i++)
    printf ("%s%.6g", i > 0 ? ", " : "", element_as_double (out->scalar_type, data, (gsize) i));
  printf ("%s]\n", out->numel > shown ? ", ..." : "");
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* --- profiling --- */

typedef struct
{
  const char *name;
  guint64 total;
  guint calls;
} OperatorTime;

static int
compare_operator_times (gconstpointer a, gconstpointer b)
{
  const OperatorTime *x = a, *y = b;
  return x->total < y->total ? 1 : x->total > y->total ? -1 : strcmp (x->name, y->name);
}

/* --profile: time per operator (instruction name), most expensive first. */
static void
print_profile (ExecutorchMethod *method)
{
  g_autoptr (GPtrArray) events = executorch_method_get_profile_events (method);
  g_autoptr (GHashTable) by_name = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (OperatorTime));
  guint64 instructions = 0, executions = 0;
  guint n_runs = 0, shown;
  int width = 24;
  GHashTableIter iter;
  gpointer value;

  for (guint i = 0; i < events->len; i++)
    {
      ExecutorchProfileEvent *event = g_ptr_array_index (events, i);
      const char *name = executorch_profile_event_get_name (event);
      OperatorTime *row;

      if (executorch_profile_event_get_instruction_index (event) < 0)
        {
          if (strcmp (name, "Method::execute") == 0)
            {
              executions += executorch_profile_event_get_duration (event);
              n_runs++;
            }
          continue;
        }
      if (executorch_profile_event_get_delegate (event) != NULL)
        continue; /* inside its DELEGATE_CALL instruction */
      row = g_hash_table_lookup (by_name, name);
      if (row == NULL)
        {
          row = g_new0 (OperatorTime, 1);
          row->name = name; /* the events outlive the table */
          g_hash_table_insert (by_name, (gpointer) name, row);
        }
      row->total += executorch_profile_event_get_duration (event);
      row->calls++;
      instructions += executorch_profile_event_get_duration (event);
    }
  g_hash_table_iter_init (&iter, by_name);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_array_append_val (rows, *(OperatorTime *) value);
  g_array_sort (rows, compare_operator_times);

  printf ("profile: %u execution%s, %.3f ms in total, %.3f ms in instructions\n", n_runs, n_runs == 1 ? "" : "s",
          executions / 1e6, instructions / 1e6);
  shown = opt_profile_top > 0 ? MIN ((guint) opt_profile_top, rows->len) : rows->len;
  for (guint i = 0; i < shown; i++)
    width = MAX (width, (int) strlen (g_array_index (rows, OperatorTime, i).name));
  printf ("%-*s %8s %12s %12s %7s\n", width, "operator", "calls", "total ms", "mean us", "share");
  for (guint i = 0; i < shown; i++)
    {
      const OperatorTime *row = &g_array_index (rows, OperatorTime, i);
      printf ("%-*s %8u %12.3f %12.3f %6.1f%%\n", width, row->name, row->calls, row->total / 1e6,
              row->total / 1e3 / row->calls, instructions > 0 ? 100.0 * row->total / instructions : 0.0);
    }
  if (shown < rows->len)
    printf ("(%u more operators; --profile-top 0 lists all)\n", rows->len - shown);
}

/* --- the modes --- */

/* --verify: every bundled test case (of --method only, if given). */
static int
run_verify (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchBundledProgram) bundled = executorch_bundled_program_new_from_file (path, &error);
  g_auto (GStrv) methods = NULL;
  guint n_cases = 0, n_failed = 0;

  if (bundled == NULL)
    return fail_with (g_steal_pointer (&error));
  methods = executorch_bundled_program_list_methods (bundled);
  for (guint m = 0; methods[m] != NULL; m++)
    {
      guint n = executorch_bundled_program_get_n_test_cases (bundled, methods[m]);

      if (opt_method != NULL && strcmp (opt_method, methods[m]) != 0)
        continue;
      for (guint i = 0; i < n; i++)
        {
          gint64 start = g_get_monotonic_time ();
          gboolean ok = executorch_bundled_program_verify (bundled, methods[m], i, opt_rtol, opt_atol, &error);
          double ms = (g_get_monotonic_time () - start) / 1000.0;

          n_cases++;
          if (ok)
            printf ("%s case %u: ok (%.3f ms)\n", methods[m], i, ms);
          else
            {
              printf ("%s case %u: %s: %s\n", methods[m], i,
                      g_error_matches (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_FOUND) ? "MISMATCH" : "FAILED",
                      error->message);
              n_failed++;
              g_clear_error (&error);
            }
        }
    }
  if (n_cases == 0)
    {
      fprintf (stderr, "%s: %s has no test cases%s%s\n", PROGRAM_NAME, path, opt_method != NULL ? " for method " : "",
               opt_method != NULL ? opt_method : "");
      return EXIT_FAILURE;
    }
  printf ("%u test case%s: %u passed, %u failed\n", n_cases, n_cases == 1 ? "" : "s", n_cases - n_failed, n_failed);
  return n_failed > 0 ? EXIT_MISMATCH : EXIT_SUCCESS;
}

static int
run_info (ExecutorchProgram *program, const char *path)
{
  g_auto (GStrv) methods = executorch_program_list_methods (program);
  g_autofree char *shown = g_filename_display_name (path);

  if (opt_json)
    {
      GError *error = NULL;
      g_autofree char *json = program_describe_json (program, path, &error);

      if (json == NULL)
        return fail_with (error);
      fputs (json, stdout);
      return EXIT_SUCCESS;
    }

  printf ("program: %s\n", shown);
  printf ("methods: %u\n", g_strv_length (methods));
  for (guint m = 0; methods[m] != NULL; m++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchMethodInfo) info = executorch_program_get_method_info (program, methods[m], &error);
      g_auto (GStrv) backends = NULL;
      g_auto (GStrv) operators = NULL;

      if (info == NULL)
        return fail_with (g_steal_pointer (&error));
      printf ("\nmethod %s\n", methods[m]);
      printf ("  inputs: %u\n", executorch_method_info_get_n_inputs (info));
      for (guint i = 0; i < executorch_method_info_get_n_inputs (info); i++)
        {
          g_autofree char *text = executorch_value_info_to_string (executorch_method_info_get_input (info, i));
          printf ("    %u: %s\n", i, text);
        }
      printf ("  outputs: %u\n", executorch_method_info_get_n_outputs (info));
      for (guint i = 0; i < executorch_method_info_get_n_outputs (info); i++)
        {
          g_autofree char *text = executorch_value_info_to_string (executorch_method_info_get_output (info, i));
          printf ("    %u: %s\n", i, text);
        }
      printf ("  planned buffers: %u\n", executorch_method_info_get_n_buffers (info));
      for (guint i = 0; i < executorch_method_info_get_n_buffers (info); i++)
        printf ("    %u: %" G_GINT64_FORMAT " bytes on %s\n", i, executorch_method_info_get_buffer_size (info, i),
                executorch_device_get_name (executorch_method_info_get_buffer_device (info, i)));
      backends = executorch_method_info_list_backends (info);
      printf ("  backends: %u\n", g_strv_length (backends));
      for (guint i = 0; backends[i] != NULL; i++)
        printf ("    %s\n", backends[i]);
      operators = executorch_method_info_list_operators (info);
      printf ("  operators: %u\n", g_strv_length (operators));
      for (guint i = 0; operators[i] != NULL; i++)
        printf ("    %s\n", operators[i]);
      printf ("  instructions: %u\n", executorch_method_info_get_n_instructions (info));
    }
  return EXIT_SUCCESS;
}

/* --- progress line --- */

/* While several executions run, one line on standard error, rewritten in
 * place with a carriage return: "[ 37/100] forward 12.345 ms, min 11.902 ms"
 * ("[warm-up 2/3]" before the timed ones; " step 2/5" with --steps).  It is
 * shown when standard error is a terminal and more than one execution runs,
 * or always with --progress; never with --no-progress, nor with --quiet
 * unless --progress is given.  It is redrawn at most ten times a second (and
 * for the first and last execution of each phase), and ends with a newline
 * before anything else is printed. */
static gboolean progress_on;
static gsize progress_width;     /* length of the line last drawn */
static gint64 progress_drawn_at; /* when, in monotonic microseconds */

static void
progress_setup (guint n_steps)
{
  guint64 executions = (guint64) n_steps * ((guint64) opt_warmup + (guint64) opt_iterations);

  if (opt_progress)
    progress_on = TRUE;
  else
    progress_on = !opt_no_progress && !opt_quiet && executions > 1 && isatty (STDERR_FILENO);
}

static void
progress_draw (const char *method_name, gint it, guint step, guint n_steps, double ms, double min_ms)
{
  g_autoptr (GString) line = g_string_new (NULL);
  gboolean last_of_phase = it == -1 || it == opt_iterations - 1;
  gint64 now = g_get_monotonic_time ();
  int width = 1;

  if (!progress_on)
    return;
  if (!(it == -opt_warmup || it == 0 || last_of_phase) && now - progress_drawn_at < G_USEC_PER_SEC / 10)
    return;
  if (it < 0)
    g_string_append_printf (line, "[warm-up %d/%d] %s", it + opt_warmup + 1, opt_warmup, method_name);
  else
    {
      for (gint n = opt_iterations; n >= 10; n /= 10)
        width++;
      g_string_append_printf (line, "[%*d/%d] %s", width, it + 1, opt_iterations, method_name);
    }
  if (n_steps > 1)
    g_string_append_printf (line, " step %u/%u", step + 1, n_steps);
  g_string_append_printf (line, " %.3f ms", ms);
  if (it >= 0)
    g_string_append_printf (line, ", min %.3f ms", min_ms);
  /* Spaces over what is left of a longer previous line. */
  fprintf (stderr, "\r%s%*s", line->str, (int) (progress_width > line->len ? progress_width - line->len : 0), "");
  fflush (stderr);
  progress_width = line->len;
  progress_drawn_at = now;
}

/* Ends the progress line, if one is shown, so the next message starts on a
 * line of its own. */
static void
progress_end (void)
{
  if (progress_width > 0)
    fputc ('\n', stderr);
  progress_width = 0;
}

/* Program load time, measured in main(), reported by --timing. */
static double program_load_ms;

/* --timing: times in milliseconds, in execution order, for bench/. */
static gboolean
write_timing (const char *path, const char *method_name, double method_ms, const double *times, GError **error)
{
  g_autoptr (GString) json = g_string_new ("{\"method\": ");

  json_append_string (json, method_name);
  g_string_append_printf (json,
                          ", \"program_load_ms\": %.3f, \"method_load_ms\": %.3f, \"warmup\": %d, "
                          "\"times_ms\": [",
                          program_load_ms, method_ms, opt_warmup);
  for (gint i = 0; i < opt_iterations; i++)
    g_string_append_printf (json, "%s%.3f", i > 0 ? ", " : "", times[i]);
  g_string_append (json, "]}\n");
  return g_file_set_contents (path, json->str, (gssize) json->len, error);
}

/* Set once the first timed execution starts. */
static gboolean profile_started;

/* Runs one step: binds @n_given input files (the rest generated), executes
 * the warm-up and timed iterations, then saves and compares the outputs of
 * the last execution.  Steps run one after another on the same method, so
 * state such as a KV cache carries over. */
static int
run_step (ExecutorchMethod *method, const char *name, guint step, guint n_steps, Fill fill, GRand *rand, char **inputs,
          NpyArray *arrays, guint n_given, char **outputs, guint n_out_files, char **compare, guint n_compare,
          double method_load_ms)
{
  GError *error = NULL;
  ExecutorchMethodInfo *info = executorch_method_get_info (method);
  guint n_inputs = executorch_method_get_n_inputs (method);
  guint n_outputs = executorch_method_get_n_outputs (method);
  g_autofree double *times = NULL;
  int status = EXIT_SUCCESS;
  double min_ms = 0.0, ms;

  times = g_new (double, opt_iterations);
  /* Bound once: a bound input stays the method's input for every
   * execution (the fixtures' repeated runs check exactly that). */
  g_rand_set_seed (rand, (guint32) opt_seed);
  for (guint i = 0; i < n_inputs; i++)
    {
      ExecutorchValueInfo *in = executorch_method_info_get_input (info, i);
      gboolean ok = i < n_given ? bind_input_array (method, in, i, inputs[i], &arrays[i], &error)
                                : bind_generated_input (method, in, i, fill, rand, &error);
      if (!ok)
        return fail_with (error);
    }
  for (gint it = -opt_warmup; it < opt_iterations; it++)
    {
      gint64 start;

      /* Warm-up executions are not profiled (with --steps: those before
       * the first step's timed ones). */
      if (it == 0 && opt_warmup > 0 && !profile_started)
        executorch_method_clear_profile_events (method);
      if (it == 0)
        profile_started = TRUE;
      start = g_get_monotonic_time ();
      if (!executorch_method_execute (method, timeout_cancellable, &error))
        {
          progress_end ();
          if (it < 0)
            g_prefix_error (&error, "warm-up execution %d: ", it + opt_warmup + 1);
          else if (opt_iterations > 1)
            g_prefix_error (&error, "iteration %d: ", it + 1);
          return execute_failed (error);
        }
      ms = (g_get_monotonic_time () - start) / 1000.0;
      if (it >= 0)
        {
          times[it] = ms;
          min_ms = it == 0 ? ms : MIN (min_ms, ms);
        }
      progress_draw (name, it, step, n_steps, ms, min_ms);
    }
  progress_end ();
  if (opt_timing != NULL && !write_timing (opt_timing, name, method_load_ms, times, &error))
    return fail_with (error);
  if (!opt_quiet)
    {
      double median;
      qsort (times, opt_iterations, sizeof (double), compare_doubles);
      median = opt_iterations % 2 ? times[opt_iterations / 2]
                                  : (times[opt_iterations / 2 - 1] + times[opt_iterations / 2]) / 2.0;
      fprintf (stderr, "%s: %s: %d iteration%s, min %.3f ms, median %.3f ms\n", PROGRAM_NAME, name, opt_iterations,
               opt_iterations == 1 ? "" : "s", times[0], median);
    }

  for (guint i = 0; i < n_outputs; i++)
    {
      Output out;
      gboolean needed = i < n_out_files || i < n_compare || !opt_quiet;

      if (!needed)
        continue;
      if (!get_output (method, i, &out, &error))
        {
          /* An output the tool cannot represent only matters if asked for. */
          if (i < n_out_files || i < n_compare)
            return fail_with (error);
          if (!opt_quiet)
            printf ("output %u: (%s)\n", i, error->message);
          g_clear_error (&error);
          continue;
        }
      if (!opt_quiet && n_out_files == 0 && n_compare == 0)
        print_output (&out, i);
      if (i < n_out_files && !npy_write_file (outputs[i], out.scalar_type, out.sizes, out.n_dims,
                                              g_bytes_get_data (out.data, NULL), g_bytes_get_size (out.data), &error))
        {
          output_clear (&out);
          return fail_with (error);
        }
      if (i < n_compare && !compare_output (&out, i, compare[i], &error))
        {
          fprintf (stderr, "%s: %s\n", PROGRAM_NAME, error->message);
          g_clear_error (&error);
          status = EXIT_MISMATCH;
        }
      output_clear (&out);
    }
  return status;
}

/* A program whose weights live in a .ptd file fails to load its methods
 * without it (the engine says "external tensor ... is in none of the
 * external data files given"): say which option supplies it. */
static int
fail_with_data_hint (GError *error)
{
  gboolean needs_data = opt_data == NULL && g_error_matches (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_NOT_FOUND) &&
                        strstr (error->message, "external") != NULL;
  int status = fail_with (error);

  if (needs_data)
    fprintf (stderr, "%s: the program keeps data in a separate file: pass it with --data FILE.ptd\n", PROGRAM_NAME);
  return status;
}

/* With no --data, MODEL.ptd beside MODEL.pte is the program's external data
 * (the name upstream's exporter suggests); a missing one is not an error. */
static void
find_data_beside (const char *model)
{
  g_autofree char *shown = NULL;
  char *candidate;

  if (opt_data != NULL || (candidate = cli_data_beside (model)) == NULL)
    return;
  opt_data = g_new0 (char *, 2);
  opt_data[0] = candidate;
  shown = g_filename_display_name (candidate);
  if (!opt_quiet)
    fprintf (stderr, "%s: using the external data in %s (found beside the program; --data chooses another)\n",
             PROGRAM_NAME, shown);
}

/* Inputs without an --input file are made up, which silently changes what
 * is measured or compared: say how many, which, and how (not with --quiet,
 * which prints only errors). */
static void
warn_generated_inputs (const char *name, guint n_inputs, guint n_given, Fill fill)
{
  g_autofree char *which = NULL;
  g_autofree char *how = NULL;

  if (opt_quiet || n_given >= n_inputs)
    return;
  which = n_inputs - n_given == 1 ? g_strdup_printf ("input %u is", n_given)
                                  : g_strdup_printf ("inputs %u to %u are", n_given, n_inputs - 1);
  if (fill == FILL_RANDOM)
    how = g_strdup_printf ("random values (--fill random, --seed %" G_GINT64_FORMAT ")", opt_seed);
  else
    how =
        g_strdup_printf ("%s (--fill %s)", fill == FILL_ONES ? "ones" : "zeros", fill == FILL_ONES ? "ones" : "zeros");
  fprintf (stderr,
           "%s: warning: %u input file%s given for the %u input%s of method %s; %s generated: tensors "
           "filled with %s, other values as exported\n",
           PROGRAM_NAME, n_given, n_given == 1 ? "" : "s", n_inputs, n_inputs == 1 ? "" : "s", name, which, how);
}

static int
run_method (ExecutorchProgram *program, Fill fill)
{
  GError *error = NULL;
  const char *name = opt_method != NULL ? opt_method : "forward";
  g_autoptr (ExecutorchMethod) method = NULL;
  guint n_inputs, n_outputs, n_given, n_out_files, n_compare;
  g_autoptr (GRand) rand = g_rand_new_with_seed ((guint32) opt_seed);
  NpyArray *arrays = NULL;
  guint n_steps = 1, step_inputs, step_outputs, step_compare;
  int status = EXIT_SUCCESS;
  gint64 load_start;
  double method_load_ms;

  if (!executorch_program_has_method (program, name))
    {
      g_auto (GStrv) methods = executorch_program_list_methods (program);
      g_autofree char *list = g_strjoinv (", ", methods);
      fprintf (stderr, "%s: the program has no method “%s” (it has: %s)\n", PROGRAM_NAME, name, list);
      return EXIT_FAILURE;
    }
  load_start = g_get_monotonic_time ();
  if (opt_profile || opt_etdump != NULL)
    method = executorch_program_load_method_profiled (program, name, &error);
  else
    method = executorch_program_load_method (program, name, &error);
  if (method == NULL)
    return fail_with_data_hint (error);
  method_load_ms = (g_get_monotonic_time () - load_start) / 1000.0;
  executorch_method_set_max_instructions (method, (guint64) opt_max_instructions);
  start_timeout ();
  if (opt_etdump_outputs != NULL && !executorch_method_set_record_outputs (method, TRUE, &error))
    return fail_with (error);
  n_inputs = executorch_method_get_n_inputs (method);
  n_outputs = executorch_method_get_n_outputs (method);
  n_given = opt_inputs != NULL ? g_strv_length (opt_inputs) : 0;
  n_out_files = opt_outputs != NULL ? g_strv_length (opt_outputs) : 0;
  n_compare = opt_compare != NULL ? g_strv_length (opt_compare) : 0;
  if (opt_steps)
    {
      /* Files come step after step, each step a full set. */
      if (n_inputs == 0 || n_given == 0 || n_given % n_inputs != 0)
        {
          fprintf (stderr, "%s: --steps needs the %u inputs of method %s for every step; %u input files given\n",
                   PROGRAM_NAME, n_inputs, name, n_given);
          return EXIT_FAILURE;
        }
      n_steps = n_given / n_inputs;
      if ((n_out_files != 0 && n_out_files != n_steps * n_outputs) ||
          (n_compare != 0 && n_compare != n_steps * n_outputs))
        {
          fprintf (stderr,
                   "%s: --steps with %u steps needs %u output or comparison files (method %s has %u "
                   "outputs)\n",
                   PROGRAM_NAME, n_steps, n_steps * n_outputs, name, n_outputs);
          return EXIT_FAILURE;
        }
    }
  else if (n_given > n_inputs)
    {
      fprintf (stderr, "%s: %u input files given, but method %s has %u inputs\n", PROGRAM_NAME, n_given, name,
               n_inputs);
      return EXIT_FAILURE;
    }
  if (!opt_steps && (n_out_files > n_outputs || n_compare > n_outputs))
    {
      fprintf (stderr, "%s: %u %s files given, but method %s has %u outputs\n", PROGRAM_NAME,
               MAX (n_out_files, n_compare), n_out_files > n_outputs ? "output" : "comparison", name, n_outputs);
      return EXIT_FAILURE;
    }
  if (!opt_steps)
    warn_generated_inputs (name, n_inputs, n_given, fill);

  /* Files are read once; each step binds their tensors once. */
  arrays = g_new0 (NpyArray, MAX (n_given, 1));
  for (guint i = 0; i < n_given; i++)
    if (!npy_read_file (opt_inputs[i], &arrays[i], &error))
      {
        for (guint j = 0; j < i; j++)
          npy_array_clear (&arrays[j]);
        return fail_with (error);
      }

  progress_setup (n_steps);
  step_inputs = n_given / n_steps;
  step_outputs = n_out_files / n_steps;
  step_compare = n_compare / n_steps;
  for (guint s = 0; s < n_steps && status == EXIT_SUCCESS; s++)
    {
      status = run_step (method, name, s, n_steps, fill, rand, opt_inputs + s * step_inputs, arrays + s * step_inputs,
                         step_inputs, opt_outputs != NULL ? opt_outputs + s * step_outputs : NULL, step_outputs,
                         opt_compare != NULL ? opt_compare + s * step_compare : NULL, step_compare, method_load_ms);
      if (status != EXIT_SUCCESS && n_steps > 1)
        fprintf (stderr, "%s: step %u of %u failed\n", PROGRAM_NAME, s + 1, n_steps);
    }
  if (n_compare > 0 && status == EXIT_SUCCESS && !opt_quiet)
    printf ("outputs match\n");
  if (opt_profile)
    print_profile (method);
  if (opt_etdump != NULL && !executorch_method_write_etdump (method, opt_etdump, &error))
    status = fail_with (error);
  if (opt_etdump_outputs != NULL && status == EXIT_SUCCESS)
    {
      g_autoptr (GBytes) buffer = executorch_method_get_debug_buffer (method, &error);
      if (buffer == NULL || !g_file_set_contents (opt_etdump_outputs, g_bytes_get_data (buffer, NULL),
                                                  (gssize) g_bytes_get_size (buffer), &error))
        status = fail_with (error);
    }
  for (guint i = 0; i < n_given; i++)
    npy_array_clear (&arrays[i]);
  g_free (arrays);
  return status;
}

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchProgram) program = NULL;
  g_auto (GStrv) args = NULL;
  Fill fill = FILL_ZEROS;
  const char *model;
  gint64 load_start;
  guint64 max_memory = 0;

  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C"); /* numbers in messages and files stay in C form */

  context = g_option_context_new ("| --verify MODEL.bpte");
  g_option_context_set_summary (context, "Runs a method of an ExecuTorch program, saves its outputs as .npy files and\n"
                                         "compares them with expected ones.");
  g_option_context_set_description (context,
                                    "Inputs not given with --input are generated from the method's metadata\n"
                                    "(with a warning). MODEL.ptd beside MODEL.pte is used when no --data is given.\n"
                                    "While several executions run, a progress line on standard error shows the\n"
                                    "execution count and times when it is a terminal (see --progress, --quiet).\n"
                                    "Exit status: 0 on success, 1 on failure or mismatch, 2 on usage errors,\n"
                                    "124 when --timeout stopped the executions.");
  g_option_context_add_main_entries (context, entries, NULL);
  args = g_strdupv (argv);
  if (!g_option_context_parse_strv (context, &args, &error))
    return cli_usage_error (PROGRAM_NAME, "%s", error->message);

  if (opt_version)
    {
      printf ("%s %s\n", PROGRAM_NAME, executorch_get_version ());
      return EXIT_SUCCESS;
    }
  if (opt_list_operators || opt_list_backends)
    {
      g_auto (GStrv) names = opt_list_operators ? executorch_list_operators () : executorch_list_backends ();

      if (opt_list_operators && opt_list_backends)
        return cli_usage_error (PROGRAM_NAME, "--list-operators and --list-backends cannot be combined");
      for (guint i = 0; names[i] != NULL; i++)
        printf ("%s\n", names[i]);
      return EXIT_SUCCESS;
    }

  if (opt_etdump_outputs != NULL && opt_etdump == NULL)
    return cli_usage_error (PROGRAM_NAME, "--etdump-outputs needs --etdump");
  if (opt_json && !opt_info)
    return cli_usage_error (PROGRAM_NAME, "--json needs --info");
  if (opt_progress && opt_no_progress)
    return cli_usage_error (PROGRAM_NAME, "--progress and --no-progress cannot be combined");
  if (opt_verify != NULL)
    {
      if (opt_rest != NULL && opt_rest[0] != NULL)
        return cli_usage_error (PROGRAM_NAME, "--verify takes the bundled program; no other program (got “%s”)",
                                opt_rest[0]);
      if (!(opt_rtol >= 0.0) || !(opt_atol >= 0.0))
        return cli_usage_error (PROGRAM_NAME, "--rtol and --atol must not be negative");
      if (opt_threads > 0)
        executorch_threadpool_set_num_threads ((guint) opt_threads);
      return run_verify (opt_verify);
    }
  if (opt_rest == NULL || opt_rest[0] == NULL)
    return cli_usage_error (PROGRAM_NAME, "no program given");
  if (opt_rest[1] != NULL)
    return cli_usage_error (PROGRAM_NAME, "one program at a time (got “%s” after “%s”)", opt_rest[1], opt_rest[0]);
  model = opt_rest[0];
  if (opt_iterations < 1)
    return cli_usage_error (PROGRAM_NAME, "--iterations must be at least 1");
  if (opt_warmup < 0)
    return cli_usage_error (PROGRAM_NAME, "--warmup must not be negative");
  if (opt_threads < 0)
    return cli_usage_error (PROGRAM_NAME, "--threads must not be negative");
  if (opt_threads > 0)
    executorch_threadpool_set_num_threads ((guint) opt_threads);
  if (opt_fill == NULL || g_str_equal (opt_fill, "zeros"))
    fill = FILL_ZEROS;
  else if (g_str_equal (opt_fill, "ones"))
    fill = FILL_ONES;
  else if (g_str_equal (opt_fill, "random"))
    fill = FILL_RANDOM;
  else
    return cli_usage_error (PROGRAM_NAME, "--fill must be zeros, ones or random, not “%s”", opt_fill);
  if (opt_seed < 0 || opt_seed > G_MAXUINT32)
    return cli_usage_error (PROGRAM_NAME, "--seed must be between 0 and %u", G_MAXUINT32);
  if (!(opt_rtol >= 0.0) || !(opt_atol >= 0.0))
    return cli_usage_error (PROGRAM_NAME, "--rtol and --atol must not be negative");
  if (opt_max_memory != NULL && !parse_size (opt_max_memory, &max_memory))
    return cli_usage_error (PROGRAM_NAME,
                            "--max-memory must be a positive number of bytes, with an optional K, M or G suffix, "
                            "not “%s”",
                            opt_max_memory);
  if (opt_max_instructions < 0)
    return cli_usage_error (PROGRAM_NAME, "--max-instructions must not be negative");
  if (!(opt_timeout >= 0.0) || opt_timeout > 1e9)
    return cli_usage_error (PROGRAM_NAME, "--timeout must be a number of seconds, not negative");

  find_data_beside (model);
  load_start = g_get_monotonic_time ();
  program = executorch_program_new_from_file_with_data (model, (const char *const *) opt_data, &error);
  if (program == NULL)
    return fail_with (g_steal_pointer (&error));
  program_load_ms = (g_get_monotonic_time () - load_start) / 1000.0;
  executorch_program_set_max_memory (program, max_memory);
  executorch_program_set_allow_native_code (program, opt_allow_native_code);
  if (opt_info)
    return run_info (program, model);
  return run_method (program, fill);
}
