// Package rec is a small package for the tests of recursive calls.
package rec

// Fact is n!: it calls itself.
func Fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * Fact(n-1)
}

// Tree is a binary tree.
type Tree struct{ Left, Right *Tree }

// Size counts the nodes of t, calling itself on its children.
func (t *Tree) Size() int {
	if t == nil {
		return 0
	}
	return 1 + t.Left.Size() + t.Right.Size()
}

// Depth is the length of xs, by a generic function calling itself.
func Depth[T any](xs []T) int {
	if len(xs) == 0 {
		return 0
	}
	return 1 + Depth(xs[1:])
}

// Even calls odd, which calls Even: two edges, neither to itself.
func Even(n int) bool {
	if n == 0 {
		return true
	}
	return odd(n - 1)
}

func odd(n int) bool {
	if n == 0 {
		return false
	}
	return Even(n - 1)
}

// Sum calls Fact, not itself.
func Sum(n int) int { return Fact(n) + Depth([]int{n}) }
