module example.com/recursive

go 1.22
