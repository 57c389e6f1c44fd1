module example.com/typed

go 1.22
