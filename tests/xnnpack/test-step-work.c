/* test-step-work.c: which XNNPACK runtimes get the thread pool (step-work.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Small operators run on the calling thread, big ones on the pool: a fully
 * connected node's work is its output size times its input features, an
 * element-wise node's its output size.
 */

#include "backend-private.h"

static XbShape
shape2 (size_t a, size_t b)
{
  XbShape s = { .ndim = 2, .dims = { a, b } };
  return s;
}

/* One fully connected node: value 0 [m, k] -> value 1 [m, n]. */
static void
make_linear (XbGraph *graph, XbNode *node, XbValue *values, XbShape *shapes, size_t m, size_t k, size_t n)
{
  memset (node, 0, sizeof *node);
  node->type = XB_NODE_FULLY_CONNECTED;
  node->n_inputs = 1;
  node->inputs[0] = 0;
  node->n_outputs = 1;
  node->outputs[0] = 1;
  memset (values, 0, 2 * sizeof *values);
  shapes[0] = shape2 (m, k);
  shapes[1] = shape2 (m, n);
  graph->values = values;
  graph->n_values = 2;
  graph->nodes = node;
  graph->n_nodes = 1;
}

static void
test_linear_sizes (void)
{
  XbGraph graph = { 0 };
  XbNode node;
  XbValue values[2];
  XbShape shapes[2];

  /* A small LLM's decode step: one token through a 288 x 768 linear. */
  make_linear (&graph, &node, values, shapes, 1, 288, 768);
  g_assert_false (xb_nodes_worth_threads (&graph, shapes, 0, 1));
  /* Its output projection to a 32000-token vocabulary. */
  make_linear (&graph, &node, values, shapes, 1, 288, 32000);
  g_assert_true (xb_nodes_worth_threads (&graph, shapes, 0, 1));
  /* The same small linear over a 16-token prompt. */
  make_linear (&graph, &node, values, shapes, 16, 288, 768);
  g_assert_true (xb_nodes_worth_threads (&graph, shapes, 0, 1));
  /* An empty range never uses the pool; a range past the nodes is clipped. */
  g_assert_false (xb_nodes_worth_threads (&graph, shapes, 0, 0));
  g_assert_true (xb_nodes_worth_threads (&graph, shapes, 0, 5));
}

static void
test_elementwise (void)
{
  XbGraph graph = { 0 };
  XbNode node;
  XbValue values[2];
  XbShape shapes[2];

  make_linear (&graph, &node, values, shapes, 1, 4096, 4096);
  node.type = XB_NODE_ADD;
  /* 4096 additions: far too little for a wake-up. */
  g_assert_false (xb_nodes_worth_threads (&graph, shapes, 0, 1));
  shapes[1] = shape2 (1024, 4096);
  g_assert_true (xb_nodes_worth_threads (&graph, shapes, 0, 1));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/xnnpack/step-work/linear-sizes", test_linear_sizes);
  g_test_add_func ("/xnnpack/step-work/elementwise", test_elementwise);
  return g_test_run ();
}
