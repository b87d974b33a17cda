# The allot controller's image, for those with Docker:
#   docker build --build-arg VERSION=v1.2.3 --build-arg COMMIT=$(git rev-parse --short=12 HEAD) -t allot .
# `make image` builds the same image without Docker, as an OCI archive
# (scripts/image), reproducible byte for byte.
FROM golang:1.26 AS build
ARG VERSION=dev
ARG COMMIT=unknown
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT" -o /out/allot ./cmd/allot

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/allot /usr/local/bin/allot
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/allot"]
