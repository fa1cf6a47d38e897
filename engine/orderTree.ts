// An account's live orders in the published view, by journal place: a persistent AVL tree
// (immutable nodes; a change copies the path to the node it changes, O(log n), and shares the
// rest), so publishing a batch costs what it changed however many live orders the account holds,
// and a reader holding a tree holds a snapshot that never changes.

import { comparePlaces, type Place } from './gateway.ts';

export type { Place } from './gateway.ts';

interface Node<V> {
  readonly place: Place;
  readonly value: V;
  readonly left: Node<V> | null;
  readonly right: Node<V> | null;
  readonly height: number;
}

const heightOf = <V>(node: Node<V> | null): number => (node === null ? 0 : node.height);

function make<V>(place: Place, value: V, left: Node<V> | null, right: Node<V> | null): Node<V> {
  return Object.freeze({ place, value, left, right, height: Math.max(heightOf(left), heightOf(right)) + 1 });
}

function rotateRight<V>(node: Node<V>): Node<V> {
  const left = node.left!; // a left-heavy node has a left child
  return make(left.place, left.value, left.left, make(node.place, node.value, left.right, node.right));
}

function rotateLeft<V>(node: Node<V>): Node<V> {
  const right = node.right!; // a right-heavy node has a right child
  return make(right.place, right.value, make(node.place, node.value, node.left, right.left), right.right);
}

function balanced<V>(place: Place, value: V, left: Node<V> | null, right: Node<V> | null): Node<V> {
  const lean = heightOf(left) - heightOf(right);
  if (lean > 1) {
    const l = left!; // lean > 1: left is taller than an empty tree
    const node = heightOf(l.left) >= heightOf(l.right) ? make(place, value, l, right) : make(place, value, rotateLeft(l), right);
    return rotateRight(node);
  }
  if (lean < -1) {
    const r = right!; // lean < -1: right is taller than an empty tree
    const node = heightOf(r.right) >= heightOf(r.left) ? make(place, value, left, r) : make(place, value, left, rotateRight(r));
    return rotateLeft(node);
  }
  return make(place, value, left, right);
}

function put<V>(node: Node<V> | null, place: Place, value: V): Node<V> {
  if (node === null) return make(place, value, null, null);
  const order = comparePlaces(place, node.place);
  if (order === 0) return make(place, value, node.left, node.right);
  return order < 0 ? balanced(node.place, node.value, put(node.left, place, value), node.right) : balanced(node.place, node.value, node.left, put(node.right, place, value));
}

function withoutFirst<V>(node: Node<V>): { first: Node<V>; rest: Node<V> | null } {
  if (node.left === null) return { first: node, rest: node.right };
  const { first, rest } = withoutFirst(node.left);
  return { first, rest: balanced(node.place, node.value, rest, node.right) };
}

function remove<V>(node: Node<V> | null, place: Place): Node<V> | null {
  if (node === null) return null;
  const order = comparePlaces(place, node.place);
  if (order < 0) return balanced(node.place, node.value, remove(node.left, place), node.right);
  if (order > 0) return balanced(node.place, node.value, node.left, remove(node.right, place));
  if (node.left === null) return node.right;
  if (node.right === null) return node.left;
  const { first, rest } = withoutFirst(node.right);
  return balanced(first.place, first.value, node.left, rest);
}

/** Visits values placed before `before` (all when null), newest first, while `visit` answers true. */
function visitNewest<V>(node: Node<V> | null, before: Place | null, visit: (value: V) => boolean): boolean {
  if (node === null) return true;
  if (before !== null && comparePlaces(node.place, before) >= 0) return visitNewest(node.left, before, visit);
  return visitNewest(node.right, before, visit) && visit(node.value) && visitNewest(node.left, before, visit);
}

/** An immutable set of values by place. */
export class PlaceTree<V> {
  static readonly EMPTY = new PlaceTree<never>(null, 0);

  private constructor(private readonly root: Node<V> | null, readonly size: number) {
    Object.freeze(this);
  }

  static empty<V>(): PlaceTree<V> {
    return PlaceTree.EMPTY as PlaceTree<V>;
  }

  has(place: Place): boolean {
    let node = this.root;
    while (node !== null) {
      const order = comparePlaces(place, node.place);
      if (order === 0) return true;
      node = order < 0 ? node.left : node.right;
    }
    return false;
  }

  /** This tree with `value` at `place` (added, or replacing the value there). */
  with(place: Place, value: V): PlaceTree<V> {
    return new PlaceTree(put(this.root, place, value), this.has(place) ? this.size : this.size + 1);
  }

  /** This tree without what is at `place`. */
  without(place: Place): PlaceTree<V> {
    return this.has(place) ? new PlaceTree(remove(this.root, place), this.size - 1) : this;
  }

  /** Visits the values placed before `before` (all when null), newest first, until `visit` answers false. */
  newestFirst(before: Place | null, visit: (value: V) => boolean): void {
    visitNewest(this.root, before, visit);
  }
}
