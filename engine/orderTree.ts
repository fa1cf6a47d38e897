// An account's live orders in the published view, by journal place: a persistent AVL tree
// (a published tree never changes; a change copies the path to the node it changes, O(log n),
// and shares the rest), so publishing a batch costs what it changed however many live orders the
// account holds, and a reader holding a tree holds a snapshot that never changes. A batch's
// changes are applied in one edit (`withChanges`): nodes made by that edit are changed in place
// by its later steps (no reader has seen them yet), so a batch of new orders, all at the newest
// end, copies the path once rather than once per order.

import { present } from '../domain/assert.ts';
import { comparePlaces, type Place } from './gateway.ts';

export type { Place } from './gateway.ts';

/** The edit that made a node: that edit alone may still change it. */
type Edit = object;

interface Node<V> {
  place: Place;
  value: V;
  left: Node<V> | null;
  right: Node<V> | null;
  height: number;
  edit: Edit;
}

const heightOf = <V>(node: Node<V> | null): number => (node === null ? 0 : node.height);

/** The node itself when this edit made it, else a copy this edit may change. */
function own<V>(node: Node<V>, edit: Edit): Node<V> {
  return node.edit === edit
    ? node
    : { place: node.place, value: node.value, left: node.left, right: node.right, height: node.height, edit };
}

function measured<V>(node: Node<V>): Node<V> {
  node.height = Math.max(heightOf(node.left), heightOf(node.right)) + 1;
  return node;
}

/** Rotations and rebalancing of a node this edit owns. */
function rotateRight<V>(node: Node<V>, edit: Edit): Node<V> {
  const left = own(present(node.left, 'a left-heavy node has a left child'), edit);
  node.left = left.right;
  left.right = measured(node);
  return measured(left);
}

function rotateLeft<V>(node: Node<V>, edit: Edit): Node<V> {
  const right = own(present(node.right, 'a right-heavy node has a right child'), edit);
  node.right = right.left;
  right.left = measured(node);
  return measured(right);
}

function rebalanced<V>(node: Node<V>, edit: Edit): Node<V> {
  const lean = heightOf(node.left) - heightOf(node.right);
  if (lean > 1) {
    const left = present(node.left, 'lean > 1: the left side is not empty');
    if (heightOf(left.left) < heightOf(left.right)) node.left = rotateLeft(own(left, edit), edit);
    return rotateRight(node, edit);
  }
  if (lean < -1) {
    const right = present(node.right, 'lean < -1: the right side is not empty');
    if (heightOf(right.right) < heightOf(right.left)) node.right = rotateRight(own(right, edit), edit);
    return rotateLeft(node, edit);
  }
  return measured(node);
}

function put<V>(node: Node<V> | null, place: Place, value: V, edit: Edit): Node<V> {
  if (node === null) return { place, value, left: null, right: null, height: 1, edit };
  const order = comparePlaces(place, node.place);
  const mine = own(node, edit);
  if (order === 0) {
    mine.value = value;
    return mine;
  }
  if (order < 0) mine.left = put(mine.left, place, value, edit);
  else mine.right = put(mine.right, place, value, edit);
  return rebalanced(mine, edit);
}

function withoutFirst<V>(node: Node<V>, edit: Edit): { first: Node<V>; rest: Node<V> | null } {
  if (node.left === null) return { first: node, rest: node.right };
  const { first, rest } = withoutFirst(node.left, edit);
  const mine = own(node, edit);
  mine.left = rest;
  return { first, rest: rebalanced(mine, edit) };
}

/** The tree without `place`, which it holds. */
function remove<V>(node: Node<V> | null, place: Place, edit: Edit): Node<V> | null {
  if (node === null) return null;
  const order = comparePlaces(place, node.place);
  if (order === 0) {
    if (node.left === null) return node.right;
    if (node.right === null) return node.left;
    const { first, rest } = withoutFirst(node.right, edit);
    const top = own(first, edit);
    top.left = node.left;
    top.right = rest;
    return rebalanced(top, edit);
  }
  const mine = own(node, edit);
  if (order < 0) mine.left = remove(mine.left, place, edit);
  else mine.right = remove(mine.right, place, edit);
  return rebalanced(mine, edit);
}

function holds<V>(root: Node<V> | null, place: Place): boolean {
  let node = root;
  while (node !== null) {
    const order = comparePlaces(place, node.place);
    if (order === 0) return true;
    node = order < 0 ? node.left : node.right;
  }
  return false;
}

/** Visits values placed before `before` (all when null), newest first, while `visit` answers true. */
function visitNewest<V>(node: Node<V> | null, before: Place | null, visit: (value: V) => boolean): boolean {
  if (node === null) return true;
  if (before !== null && comparePlaces(node.place, before) >= 0) return visitNewest(node.left, before, visit);
  return visitNewest(node.right, before, visit) && visit(node.value) && visitNewest(node.left, before, visit);
}

/** One change: the value at `place` (null: none there any more). */
export interface PlaceChange<V> {
  place: Place;
  value: V | null;
}

/** An immutable set of values by place. */
export class PlaceTree<V> {
  private static readonly EMPTY = new PlaceTree<never>(null, 0);

  private constructor(
    private readonly root: Node<V> | null,
    readonly size: number,
  ) {
    Object.freeze(this);
  }

  static empty<V>(): PlaceTree<V> {
    return PlaceTree.EMPTY;
  }

  has(place: Place): boolean {
    return holds(this.root, place);
  }

  /** This tree with `value` at `place` (added, or replacing the value there). */
  with(place: Place, value: V): PlaceTree<V> {
    return this.withChanges([{ place, value }]);
  }

  /** This tree without what is at `place`. */
  without(place: Place): PlaceTree<V> {
    return this.withChanges([{ place, value: null }]);
  }

  /** This tree with the changes applied in order, in one edit. */
  withChanges(changes: Iterable<PlaceChange<V>>): PlaceTree<V> {
    const edit: Edit = {};
    let root = this.root;
    let size = this.size;
    let changed = false;
    for (const { place, value } of changes) {
      const held = holds(root, place);
      if (value === null) {
        if (!held) continue;
        root = remove(root, place, edit);
        size--;
      } else {
        root = put(root, place, value, edit);
        if (!held) size++;
      }
      changed = true;
    }
    return changed ? new PlaceTree(root, size) : this;
  }

  /** Visits the values placed before `before` (all when null), newest first, until `visit` answers false. */
  newestFirst(before: Place | null, visit: (value: V) => boolean): void {
    visitNewest(this.root, before, visit);
  }
}
