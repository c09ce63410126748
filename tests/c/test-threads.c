/* test-threads.c: one Program shared by Methods in several threads, and
 * asynchronous and cancelled executions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What docs/threading.md promises, tested:
 * - a Program is shared: threads load their own Methods from it at the same
 *   time, execute them at the same time (the kernels' thread pool is shared
 *   too) and load and free more Methods meanwhile; every result matches the
 *   fixture's expected output;
 * - execute_async runs on a worker and completes in the caller's main
 *   context; the Method is busy until then;
 * - cancelling, from another thread or from the main context, while many
 *   executions are in flight: every execution either completes with the
 *   right output or fails with G_IO_ERROR_CANCELLED.
 */
#include "fixture-util.h"
#include "common-util.h"

#define N_THREADS 4

typedef struct
{
  const char *fixture; /* "mlp" or "nets/mlp_deep" */
  const char *pte;
} Fixture;

static const Fixture fixtures[] = {
  { "mlp", "mlp/mlp.pte" },
  { "nets/mlp_deep", "nets/mlp_deep/mlp_deep.pte" },
};

static ExecutorchProgram *
load_program (const Fixture *fixture)
{
  g_autofree char *path = g_build_filename (TEST_MODELS_DIR, fixture->pte, NULL);
  g_autoptr (GError) error = NULL;
  ExecutorchProgram *program = executorch_program_new_from_file (path, &error);

  g_assert_no_error (error);
  return program;
}

static char *
case_file (const Fixture *fixture, guint n, const char *what)
{
  return g_strdup_printf ("%s/forward.case%u.%s.npy", fixture->fixture, n, what);
}

/* ---- one Program, a Method per thread ---- */

typedef struct
{
  const Fixture *fixture;
  ExecutorchProgram *program;  /* shared */
  ExecutorchTensor *inputs[2]; /* shared, read only */
  guint iterations;
  guint done;
  guint extra_loads;
} Worker;

static gpointer
worker_main (gpointer user_data)
{
  Worker *worker = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = executorch_program_load_method (worker->program, "forward", &error);
  g_autofree char *out0 = case_file (worker->fixture, 0, "out0");
  g_autofree char *out1 = case_file (worker->fixture, 1, "out0");

  g_assert_no_error (error);
  for (guint i = 0; i < worker->iterations; i++)
    {
      guint which = i % 2;
      g_autoptr (GPtrArray) outputs = executorch_method_run (method, &worker->inputs[which], 1, NULL, &error);

      g_assert_no_error (error);
      g_assert_true (fixture_tensor_matches (g_ptr_array_index (outputs, 0), which ? out1 : out0, 1e-5, 1e-6));
      worker->done++;
      /* Meanwhile more Methods come and go from the same Program. */
      if (i % 25 == 0)
        {
          g_autoptr (ExecutorchMethod) extra = executorch_program_load_method (worker->program, "forward", &error);
          g_assert_no_error (error);
          worker->extra_loads++;
        }
    }
  return NULL;
}

static void
test_shared_program (gconstpointer data)
{
  const Fixture *fixture = data;
  g_autoptr (ExecutorchProgram) program = load_program (fixture);
  g_autofree char *in0 = case_file (fixture, 0, "in0");
  g_autofree char *in1 = case_file (fixture, 1, "in0");
  ExecutorchTensor *inputs[2] = { fixture_npy_tensor (in0), fixture_npy_tensor (in1) };
  Worker workers[N_THREADS];
  GThread *threads[N_THREADS];
  guint total = 0;

  for (guint t = 0; t < N_THREADS; t++)
    {
      workers[t] = (Worker){ fixture, program, { inputs[0], inputs[1] }, g_test_slow () ? 10000 : 1000, 0, 0 };
      threads[t] = g_thread_new ("method", worker_main, &workers[t]);
    }
  for (guint t = 0; t < N_THREADS; t++)
    {
      g_thread_join (threads[t]);
      g_assert_cmpuint (workers[t].done, ==, workers[t].iterations);
      g_assert_cmpuint (workers[t].extra_loads, ==, (workers[t].iterations + 24) / 25);
      total += workers[t].done;
    }
  g_test_message ("%s: %u threads, %u checked executions of one shared program", fixture->fixture, N_THREADS, total);
  g_object_unref (inputs[0]);
  g_object_unref (inputs[1]);
}

/* ---- blocking executions cancelled from another thread ---- */

typedef struct
{
  const Fixture *fixture;
  ExecutorchProgram *program;
  ExecutorchTensor *input;
  GCancellable *cancellable;
  gint *started; /* atomic: executions begun, all threads */
  guint completed, cancelled;
} CancelWorker;

static gpointer
cancel_worker_main (gpointer user_data)
{
  CancelWorker *worker = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (ExecutorchMethod) method = executorch_program_load_method (worker->program, "forward", &error);
  g_autofree char *out0 = case_file (worker->fixture, 0, "out0");

  g_assert_no_error (error);
  for (;;)
    {
      /* Planned inputs may share memory with later activations: bind the
       * input before every execution. */
      g_assert_true (executorch_method_set_input (method, 0, worker->input, &error));
      g_assert_no_error (error);
      g_atomic_int_inc (worker->started);
      if (!executorch_method_execute (method, worker->cancellable, &error))
        {
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
          worker->cancelled++;
          break;
        }
      {
        g_autoptr (ExecutorchTensor) output = executorch_method_get_output (method, 0, &error);
        g_assert_no_error (error);
        g_assert_true (fixture_tensor_matches (output, out0, 1e-5, 1e-6));
      }
      worker->completed++;
    }
  /* The method still works after a cancelled execution. */
  g_clear_error (&error);
  g_assert_true (executorch_method_set_input (method, 0, worker->input, &error));
  g_assert_true (executorch_method_execute (method, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr (ExecutorchTensor) output = executorch_method_get_output (method, 0, &error);
    g_assert_true (fixture_tensor_matches (output, out0, 1e-5, 1e-6));
  }
  return NULL;
}

static void
test_cancel_blocking (void)
{
  const Fixture *fixture = &fixtures[1];
  g_autoptr (ExecutorchProgram) program = load_program (fixture);
  g_autofree char *in0 = case_file (fixture, 0, "in0");
  g_autoptr (ExecutorchTensor) input = fixture_npy_tensor (in0);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  CancelWorker workers[N_THREADS];
  GThread *threads[N_THREADS];
  gint started = 0;
  guint completed = 0, cancelled = 0;

  for (guint t = 0; t < N_THREADS; t++)
    {
      workers[t] = (CancelWorker){ fixture, program, input, cancellable, &started, 0, 0 };
      threads[t] = g_thread_new ("cancel", cancel_worker_main, &workers[t]);
    }
  /* Cancel midway: once the threads are well into their executions. */
  while (g_atomic_int_get (&started) < 200)
    g_usleep (1000);
  g_cancellable_cancel (cancellable);
  for (guint t = 0; t < N_THREADS; t++)
    {
      g_thread_join (threads[t]);
      g_assert_cmpuint (workers[t].cancelled, ==, 1);
      completed += workers[t].completed;
      cancelled += workers[t].cancelled;
    }
  g_test_message ("blocking: %u executions completed and checked, %u cancelled", completed, cancelled);
  g_assert_cmpuint (completed, >=, 200 - N_THREADS);
}

/* ---- execute_async, cancelled from the main context ---- */

#define N_ASYNC 6

typedef struct AsyncState AsyncState;

typedef struct
{
  AsyncState *state;
  ExecutorchMethod *method;
  gboolean running;
} AsyncSlot;

struct AsyncState
{
  const Fixture *fixture;
  GCancellable *cancellable;
  GMainContext *context;
  AsyncSlot slots[N_ASYNC];
  guint completed, cancelled, in_flight, cancel_after;
  char *expected;
  GThread *main_thread;
  ExecutorchTensor *input;
};

static void start_async (AsyncSlot *slot);

static void
async_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncSlot *slot = user_data;
  AsyncState *state = slot->state;
  g_autoptr (GError) error = NULL;

  /* Completions arrive in the caller's thread-default context. */
  g_assert_true (g_thread_self () == state->main_thread);
  g_assert_true (g_main_context_is_owner (state->context));
  state->in_flight--;
  if (!executorch_method_execute_finish (slot->method, result, &error))
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_assert_true (g_cancellable_is_cancelled (state->cancellable));
      state->cancelled++;
      slot->running = FALSE;
      return;
    }
  {
    g_autoptr (ExecutorchTensor) output = executorch_method_get_output (slot->method, 0, &error);
    g_assert_no_error (error);
    g_assert_true (fixture_tensor_matches (output, state->expected, 1e-5, 1e-6));
  }
  if (++state->completed == state->cancel_after)
    g_cancellable_cancel (state->cancellable); /* others are in flight now */
  g_assert_true (executorch_method_set_input (slot->method, 0, state->input, &error));
  g_assert_no_error (error);
  start_async (slot);
}

static void
start_async (AsyncSlot *slot)
{
  g_autoptr (GError) error = NULL;

  executorch_method_execute_async (slot->method, slot->state->cancellable, async_done, slot);
  slot->state->in_flight++;
  /* Until the callback runs the method is busy. */
  g_assert_false (executorch_method_execute (slot->method, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_STATE);
  g_clear_error (&error);
  g_assert_null (executorch_method_get_output (slot->method, 0, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_STATE);
  g_clear_error (&error);
  g_assert_false (executorch_method_set_input (slot->method, 0, NULL, &error));
  g_assert_error (error, EXECUTORCH_ERROR, EXECUTORCH_ERROR_INVALID_STATE);
}

static void
test_cancel_async (void)
{
  const Fixture *fixture = &fixtures[1];
  g_autoptr (ExecutorchProgram) program = load_program (fixture);
  g_autofree char *in0 = case_file (fixture, 0, "in0");
  g_autoptr (ExecutorchTensor) input = fixture_npy_tensor (in0);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GMainContext) context = g_main_context_new ();
  AsyncState state = { fixture,          cancellable, context, { { 0 } }, 0, 0, 0, 300, case_file (fixture, 0, "out0"),
                       g_thread_self (), input };
  gboolean any_running = TRUE;

  g_main_context_push_thread_default (context);
  for (guint i = 0; i < N_ASYNC; i++)
    {
      g_autoptr (GError) error = NULL;
      state.slots[i].state = &state;
      state.slots[i].method = executorch_program_load_method (program, "forward", &error);
      g_assert_no_error (error);
      g_assert_true (executorch_method_set_input (state.slots[i].method, 0, input, &error));
      g_assert_no_error (error);
      state.slots[i].running = TRUE;
      start_async (&state.slots[i]);
    }
  while (any_running)
    {
      g_main_context_iteration (context, TRUE);
      any_running = FALSE;
      for (guint i = 0; i < N_ASYNC; i++)
        any_running = any_running || state.slots[i].running;
    }
  g_main_context_pop_thread_default (context);
  g_test_message ("async: %u executions completed and checked, %u cancelled", state.completed, state.cancelled);
  g_assert_cmpuint (state.in_flight, ==, 0);
  g_assert_cmpuint (state.completed, >=, state.cancel_after);
  /* Each method's last execution, in flight or started after the cancel,
   * reports the cancellation. */
  g_assert_cmpuint (state.cancelled, ==, N_ASYNC);
  for (guint i = 0; i < N_ASYNC; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchTensor) output = NULL;
      g_assert_true (executorch_method_set_input (state.slots[i].method, 0, input, &error));
      g_assert_true (executorch_method_execute (state.slots[i].method, NULL, &error));
      g_assert_no_error (error);
      output = executorch_method_get_output (state.slots[i].method, 0, &error);
      g_assert_true (fixture_tensor_matches (output, state.expected, 1e-5, 1e-6));
      g_clear_object (&output);
      g_object_unref (state.slots[i].method);
    }
  g_free (state.expected);
}

/* A method freed by its owner while an async execution is in flight stays
 * alive (the task holds it) until the callback has run. */
static void
async_unref_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  gboolean *done = user_data;
  g_autoptr (GError) error = NULL;

  g_assert_true (executorch_method_execute_finish (EXECUTORCH_METHOD (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

static void
test_async_owner_unref (void)
{
  g_autoptr (ExecutorchProgram) program = load_program (&fixtures[0]);
  g_autoptr (ExecutorchTensor) input = fixture_npy_tensor ("mlp/forward.case0.in0.npy");
  g_autoptr (GError) error = NULL;
  ExecutorchMethod *method = executorch_program_load_method (program, "forward", &error);
  gboolean done = FALSE;

  g_assert_no_error (error);
  g_assert_true (executorch_method_set_input (method, 0, input, &error));
  executorch_method_execute_async (method, NULL, async_unref_done, &done);
  g_object_unref (method);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* ---- the CPU pool starts while loading, not in the first execution ---- */

static void
test_pool_started_at_load (void)
{
  if (g_test_subprocess ())
    {
      guint before = count_threads ();
      g_autoptr (ExecutorchProgram) program = load_program (&fixtures[1]);
      g_autoptr (GError) error = NULL;
      g_autoptr (ExecutorchMethod) method = executorch_program_load_method (program, "forward", &error);

      g_assert_no_error (error);
      /* Two threads: the caller and one worker, started before any
       * execution (it used to start in the first parallel kernel). */
      g_assert_cmpuint (count_threads (), ==, before + 1);
      return;
    }
  /* In a fresh process with a known pool size (the variable is read once). */
  g_setenv ("EXECUTORCH_NUM_THREADS", "2", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/threads/pool/started-at-load", test_pool_started_at_load);
  g_test_add_data_func ("/threads/shared-program/mlp", &fixtures[0], test_shared_program);
  g_test_add_data_func ("/threads/shared-program/mlp-deep", &fixtures[1], test_shared_program);
  g_test_add_func ("/threads/cancel/blocking", test_cancel_blocking);
  g_test_add_func ("/threads/cancel/async", test_cancel_async);
  g_test_add_func ("/threads/async/owner-unref", test_async_owner_unref);
  return g_test_run ();
}
