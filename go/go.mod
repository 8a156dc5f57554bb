module github.com/idmint/idmint/go

go 1.22
