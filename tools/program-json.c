/* program-json.c: a program's methods as JSON (executorch-run --info --json)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Written by hand (the runtime has no JSON library among its dependencies);
 * every string goes through json_append_string, so names read from the
 * program cannot break the document.
 */
#include "program-json.h"

#include <math.h>

void
json_append_string (GString *json, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text != NULL ? text : "", -1);

  g_string_append_c (json, '"');
  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '"' || c == '\\')
        g_string_append_printf (json, "\\%c", c);
      else if (c == '\n')
        g_string_append (json, "\\n");
      else if (c == '\t')
        g_string_append (json, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (json, "\\u%04x", c);
      else
        g_string_append_c (json, (char) c);
    }
  g_string_append_c (json, '"');
}

void
json_append_double (GString *json, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    g_string_append (json, "null");
  else
    g_string_append (json, g_ascii_dtostr (buffer, sizeof buffer, value));
}

static const char *
enum_nick (GType type, int value)
{
  GEnumClass *klass = g_type_class_ref (type);
  GEnumValue *found = g_enum_get_value (klass, value);
  const char *nick = found != NULL ? found->value_nick : "unknown";

  g_type_class_unref (klass); /* enum classes stay alive once created */
  return nick;
}

static void
append_strv (GString *json, char **strings)
{
  g_string_append_c (json, '[');
  for (guint i = 0; strings[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (json, ", ");
      json_append_string (json, strings[i]);
    }
  g_string_append_c (json, ']');
}

static void
append_value (GString *json, ExecutorchValueInfo *info, guint index)
{
  ExecutorchValueKind kind = executorch_value_info_get_kind (info);

  g_string_append_printf (json, "{\"index\": %u, \"kind\": ", index);
  json_append_string (json, enum_nick (EXECUTORCH_TYPE_VALUE_KIND, kind));
  switch (kind)
    {
      case EXECUTORCH_VALUE_KIND_TENSOR:
        {
          ExecutorchScalarType type = executorch_value_info_get_scalar_type (info);
          const char *dtype = executorch_scalar_type_to_string (type);
          gsize n_dims, n_order;
          const gint64 *sizes = executorch_value_info_get_sizes (info, &n_dims);
          const guint8 *order = executorch_value_info_get_dim_order (info, &n_order);

          g_string_append (json, ", \"dtype\": ");
          json_append_string (json, dtype != NULL ? dtype : "unknown");
          g_string_append (json, ", \"sizes\": [");
          for (gsize i = 0; i < n_dims; i++)
            g_string_append_printf (json, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", sizes[i]);
          g_string_append (json, "], \"dim_order\": [");
          for (gsize i = 0; i < n_order; i++)
            g_string_append_printf (json, "%s%u", i > 0 ? ", " : "", order[i]);
          g_string_append (json, "], \"dynamism\": ");
          json_append_string (json, enum_nick (EXECUTORCH_TYPE_SHAPE_DYNAMISM,
                                               executorch_value_info_get_shape_dynamism (info)));
          g_string_append_printf (json, ", \"nbytes\": %" G_GSIZE_FORMAT ", \"planned\": %s, \"device\": ",
                                  executorch_value_info_get_nbytes (info),
                                  executorch_value_info_is_memory_planned (info) ? "true" : "false");
          json_append_string (json, executorch_device_get_name (executorch_value_info_get_device (info)));
          break;
        }
      case EXECUTORCH_VALUE_KIND_INT:
        g_string_append_printf (json, ", \"value\": %" G_GINT64_FORMAT, executorch_value_info_get_int_value (info));
        break;
      case EXECUTORCH_VALUE_KIND_DOUBLE:
        g_string_append (json, ", \"value\": ");
        json_append_double (json, executorch_value_info_get_double_value (info));
        break;
      case EXECUTORCH_VALUE_KIND_BOOL:
        g_string_append_printf (json, ", \"value\": %s",
                                executorch_value_info_get_bool_value (info) ? "true" : "false");
        break;
      default: break;
    }
  g_string_append_c (json, '}');
}

static void
append_method (GString *json, ExecutorchMethodInfo *info)
{
  g_auto (GStrv) backends = executorch_method_info_list_backends (info);
  g_auto (GStrv) operators = executorch_method_info_list_operators (info);
  const char *input_spec = executorch_method_info_get_input_spec (info);
  const char *output_spec = executorch_method_info_get_output_spec (info);

  g_string_append (json, "{\"name\": ");
  json_append_string (json, executorch_method_info_get_name (info));
  g_string_append (json, ", \"inputs\": [");
  for (guint i = 0; i < executorch_method_info_get_n_inputs (info); i++)
    {
      if (i > 0)
        g_string_append (json, ", ");
      append_value (json, executorch_method_info_get_input (info, i), i);
    }
  g_string_append (json, "], \"outputs\": [");
  for (guint i = 0; i < executorch_method_info_get_n_outputs (info); i++)
    {
      if (i > 0)
        g_string_append (json, ", ");
      append_value (json, executorch_method_info_get_output (info, i), i);
    }
  g_string_append (json, "], \"planned_buffers\": [");
  for (guint i = 0; i < executorch_method_info_get_n_buffers (info); i++)
    {
      g_string_append_printf (json, "%s{\"index\": %u, \"size\": %" G_GINT64_FORMAT ", \"device\": ", i > 0 ? ", " : "",
                              i, executorch_method_info_get_buffer_size (info, i));
      json_append_string (json, executorch_device_get_name (executorch_method_info_get_buffer_device (info, i)));
      g_string_append_c (json, '}');
    }
  g_string_append (json, "], \"backends\": ");
  append_strv (json, backends);
  g_string_append (json, ", \"operators\": ");
  append_strv (json, operators);
  g_string_append_printf (json, ", \"instructions\": %u", executorch_method_info_get_n_instructions (info));
  g_string_append (json, ", \"input_spec\": ");
  json_append_string (json, input_spec);
  g_string_append (json, ", \"output_spec\": ");
  json_append_string (json, output_spec);
  g_string_append_c (json, '}');
}

char *
program_describe_json (ExecutorchProgram *program, const char *path, GError **error)
{
  g_auto (GStrv) methods = executorch_program_list_methods (program);
  g_autofree char *shown = g_filename_display_name (path);
  g_autoptr (GString) json = g_string_new ("{\"program\": ");

  json_append_string (json, shown);
  g_string_append (json, ", \"methods\": [");
  for (guint m = 0; methods[m] != NULL; m++)
    {
      g_autoptr (ExecutorchMethodInfo) info = executorch_program_get_method_info (program, methods[m], error);

      if (info == NULL)
        return NULL;
      if (m > 0)
        g_string_append (json, ", ");
      append_method (json, info);
    }
  g_string_append (json, "]}\n");
  return g_string_free (g_steal_pointer (&json), FALSE);
}
