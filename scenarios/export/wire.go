package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
)

// CLIJSON is an input as the AWS CLI's --cli-input-json takes it: the
// request body the SDK's own serializer, generated from the API model,
// writes for it (the API's member names and wire forms, members left unset
// left out), indented with keys sorted so the same input gives the same
// bytes. Nothing is sent: the request is caught before the network. An
// input the SDK's validation refuses (a required member missing) is an
// error.
func CLIJSON(in any) ([]byte, error) {
	var c catcher
	ctx := context.Background()
	var err error
	// Batch is REST-JSON: a member bound to the path, query or a header
	// would be missing from the body. The operation's fixed path is checked
	// below; these operations bind no member outside the body.
	var path string
	switch v := in.(type) {
	case *batch.CreateSchedulingPolicyInput:
		path = "/v1/createschedulingpolicy"
		_, err = batchClient(&c).CreateSchedulingPolicy(ctx, v)
	case *batch.CreateJobQueueInput:
		path = "/v1/createjobqueue"
		_, err = batchClient(&c).CreateJobQueue(ctx, v)
	case *batch.CreateQuotaShareInput:
		path = "/v1/createquotashare"
		_, err = batchClient(&c).CreateQuotaShare(ctx, v)
	case *sagemaker.CreateClusterSchedulerConfigInput:
		path = "/"
		_, err = sagemakerClient(&c).CreateClusterSchedulerConfig(ctx, v)
	case *sagemaker.CreateComputeQuotaInput:
		path = "/"
		_, err = sagemakerClient(&c).CreateComputeQuota(ctx, v)
	default:
		return nil, fmt.Errorf("no AWS operation takes a %T", in)
	}
	if !errors.Is(err, errCaught) {
		if err == nil {
			err = errors.New("the SDK sent nothing")
		}
		return nil, err
	}
	if c.req.URL.Path != path || c.req.URL.RawQuery != "" {
		return nil, fmt.Errorf("%T: the SDK bound members outside the body (%s)", in, c.req.URL.RequestURI())
	}
	dec := json.NewDecoder(bytes.NewReader(c.body))
	dec.UseNumber() // numbers as the serializer wrote them
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%T: the SDK's body is not JSON: %w", in, err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

var errCaught = errors.New("request caught before sending")

// catcher is the clients' HTTP client: it keeps the serialized request
// and fails it, so nothing leaves the process.
type catcher struct {
	req  *http.Request
	body []byte
}

func (c *catcher) Do(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	c.req, c.body = r, body
	return nil, errCaught
}

// The endpoint is never reached; anonymous credentials skip signing and
// no retries keep one request.
const wireEndpoint = "https://aws.invalid"

func batchClient(c *catcher) *batch.Client {
	return batch.New(batch.Options{Region: "us-east-1", BaseEndpoint: aws.String(wireEndpoint),
		Credentials: aws.AnonymousCredentials{}, HTTPClient: c, Retryer: aws.NopRetryer{}})
}

func sagemakerClient(c *catcher) *sagemaker.Client {
	return sagemaker.New(sagemaker.Options{Region: "us-east-1", BaseEndpoint: aws.String(wireEndpoint),
		Credentials: aws.AnonymousCredentials{}, HTTPClient: c, Retryer: aws.NopRetryer{}})
}
