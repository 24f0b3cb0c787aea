// prox/bvh_stack.glsl — the traversal stack shared by prox's BVH queries
// (bvh_closest_point.glsl, bvh_first_hit.glsl), after prox/bvh/traverse.hpp:
// depth first; a node's entered children are pushed farthest first, so the
// nearest (smallest key) is popped next; an entry whose key exceeds the
// query's current limit is skipped when popped.
//
// The stack is module-scope (private per invocation), so the queries share
// these functions without copying arrays through parameters. Its depth is
// PROX_STACK_SIZE (flat_index.glsl); a push that would overflow it fails and
// the query answers PROX_STATUS_STACK_OVERFLOW (prox::gpu then answers that
// query on the CPU).
#ifndef PROX_BVH_STACK_GLSL
#define PROX_BVH_STACK_GLSL
#include "flat_index.glsl"

uint prox_stack_child[PROX_STACK_SIZE];  // node index, or first slot of a leaf
uint prox_stack_count[PROX_STACK_SIZE];  // 0: inner node; n > 0: leaf of n slots
float prox_stack_key[PROX_STACK_SIZE];   // the node test's key (lower bound, entry t)
int prox_stack_top;

/// The stack holding only the root (node 0) with key root_key.
void prox_stack_start(float root_key) {
  prox_stack_child[0] = 0u;
  prox_stack_count[0] = 0u;
  prox_stack_key[0] = root_key;
  prox_stack_top = 1;
}

/// Pops the next entry whose key is at most limit (the others are dropped):
/// its index into prox_stack_child / prox_stack_count (valid until the next
/// push), or -1 when the stack is empty.
int prox_stack_pop(float limit) {
  while (prox_stack_top > 0) {
    --prox_stack_top;
    if (!(prox_stack_key[prox_stack_top] > limit)) return prox_stack_top;
  }
  return -1;
}

/// Pushes the children of `node` whose bits are set in `enter`, with keys
/// key[k], farthest first (of equal keys the lowest slot first); false
/// when the stack would overflow.
bool prox_stack_push_children(uint node, uint enter, float key[8]) {
  while (enter != 0u) {
    int far = findLSB(enter);
    for (uint m = enter & (enter - 1u); m != 0u; m &= m - 1u) {
      int k = findLSB(m);
      if (key[k] > key[far]) far = k;
    }
    enter &= ~(1u << far);
    if (prox_stack_top == PROX_STACK_SIZE) return false;
    prox_stack_child[prox_stack_top] = prox_nodes[node].child[far];
    prox_stack_count[prox_stack_top] = prox_nodes[node].count[far];
    prox_stack_key[prox_stack_top] = key[far];
    ++prox_stack_top;
  }
  return true;
}
#endif
