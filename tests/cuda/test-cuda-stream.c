/* test-cuda-stream.c: the caller stream helper: nesting, per-thread values,
 * misuse, and two separate libraries seeing the stream the application set
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <executorch-cuda-stream.h>

#include <glib.h>

ExecutorchCudaStream consumer_a_stream (void);
ExecutorchCudaStream consumer_b_stream (void);

/* Streams are opaque to the helper: any distinct pointers will do. */
#define STREAM(n) ((ExecutorchCudaStream) GSIZE_TO_POINTER (0x1000 * (n)))

static void
test_none (void)
{
  ExecutorchCudaStream stream = STREAM (9);

  g_assert_false (executorch_cuda_stream_get_caller (&stream));
  g_assert_true (stream == STREAM (9));
  g_assert_cmpuint (executorch_cuda_stream_depth (), ==, 0);
  g_assert_null (consumer_a_stream ());
}

static void
test_nesting (void)
{
  ExecutorchCudaStreamScope outer, inner;
  ExecutorchCudaStream stream = NULL;

  executorch_cuda_stream_scope_enter (&outer, STREAM (1));
  g_assert_true (executorch_cuda_stream_get_caller (&stream));
  g_assert_true (stream == STREAM (1));
  executorch_cuda_stream_scope_enter (&inner, STREAM (2));
  g_assert_cmpuint (executorch_cuda_stream_depth (), ==, 2);
  g_assert_true (consumer_a_stream () == STREAM (2));
  executorch_cuda_stream_scope_leave (&inner);
  g_assert_true (consumer_a_stream () == STREAM (1));
  executorch_cuda_stream_scope_leave (&outer);
  g_assert_false (executorch_cuda_stream_get_caller (NULL));
  g_assert_cmpuint (executorch_cuda_stream_depth (), ==, 0);
}

/* NULL (the legacy default stream) is a real choice, not "no choice". */
static void
test_null_stream (void)
{
  ExecutorchCudaStreamScope scope;
  ExecutorchCudaStream stream = STREAM (5);

  executorch_cuda_stream_scope_enter (&scope, NULL);
  g_assert_true (executorch_cuda_stream_get_caller (&stream));
  g_assert_null (stream);
  executorch_cuda_stream_scope_leave (&scope);
  g_assert_false (executorch_cuda_stream_get_caller (&stream));
}

static void
test_two_libraries (void)
{
  ExecutorchCudaStreamScope scope;

  executorch_cuda_stream_scope_enter (&scope, STREAM (3));
  g_assert_true (consumer_a_stream () == STREAM (3));
  g_assert_true (consumer_b_stream () == STREAM (3));
  executorch_cuda_stream_scope_leave (&scope);
  g_assert_null (consumer_b_stream ());
}

static gpointer
other_thread (gpointer data)
{
  ExecutorchCudaStreamScope scope;
  ExecutorchCudaStream seen_before = consumer_b_stream ();

  executorch_cuda_stream_scope_enter (&scope, STREAM (7));
  g_assert_true (consumer_b_stream () == STREAM (7));
  executorch_cuda_stream_scope_leave (&scope);
  return seen_before;
}

static void
test_per_thread (void)
{
  ExecutorchCudaStreamScope scope;
  GThread *thread;

  executorch_cuda_stream_scope_enter (&scope, STREAM (4));
  thread = g_thread_new ("other", other_thread, NULL);
  /* The other thread saw no stream of ours, and its own left ours alone. */
  g_assert_null (g_thread_join (thread));
  g_assert_true (consumer_a_stream () == STREAM (4));
  executorch_cuda_stream_scope_leave (&scope);
}

static void
test_out_of_order (void)
{
  ExecutorchCudaStreamScope outer, inner;

  if (g_test_subprocess ())
    {
      executorch_cuda_stream_scope_enter (&outer, STREAM (1));
      executorch_cuda_stream_scope_enter (&inner, STREAM (2));
      executorch_cuda_stream_scope_leave (&outer); /* refused: inner is innermost */
      g_assert_true (consumer_a_stream () == STREAM (2));
      executorch_cuda_stream_scope_leave (&inner);
      executorch_cuda_stream_scope_leave (&inner); /* refused: already left */
      g_assert_true (consumer_a_stream () == STREAM (1));
      executorch_cuda_stream_scope_leave (&outer);
      g_assert_cmpuint (executorch_cuda_stream_depth (), ==, 0);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*scope 1 left while scope 2 is innermost*not active*");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cuda-stream/none", test_none);
  g_test_add_func ("/cuda-stream/nesting", test_nesting);
  g_test_add_func ("/cuda-stream/null-stream", test_null_stream);
  g_test_add_func ("/cuda-stream/two-libraries", test_two_libraries);
  g_test_add_func ("/cuda-stream/per-thread", test_per_thread);
  g_test_add_func ("/cuda-stream/out-of-order", test_out_of_order);
  return g_test_run ();
}
